import { createHmac } from 'node:crypto';

/**
 * Pairwise identifiers: a grantee sees a subject (and a profile) under an id that is stable for
 * that client and different for every other client, so two grantees cannot join what they hold,
 * and the internal subject id never reaches a grantee.
 */
/** Every pairwise subject id starts with this. */
export const PAIRWISE_SUBJECT_PREFIX = 'ppx:subject:';

export class PairwiseIds {
  readonly #secret: Buffer;
  /** Computed ids, bounded; they never change for a given secret, so losing them is harmless. */
  readonly #memo = new Map<string, string>();

  constructor(secret: string) {
    this.#secret = Buffer.from(secret, 'base64url');
  }

  subject(subjectId: string, clientId: string): string {
    const memoKey = `${clientId}\u0000${subjectId}`;
    let id = this.#memo.get(memoKey);
    if (id === undefined) {
      id = `${PAIRWISE_SUBJECT_PREFIX}${this.#mac('subject', subjectId, clientId)}`;
      if (this.#memo.size >= 10_000) this.#memo.clear();
      this.#memo.set(memoKey, id);
    }
    return id;
  }

  profile(profileId: string, clientId: string): string {
    return `ppx:profile:${this.#mac('profile', profileId, clientId)}`;
  }

  #mac(kind: string, id: string, clientId: string): string {
    return createHmac('sha256', this.#secret)
      .update(`${kind}\u0000${clientId}\u0000${id}`)
      .digest('base64url')
      .slice(0, 27);
  }
}
