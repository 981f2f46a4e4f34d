import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/**
 * Pairwise identifiers: a grantee sees a subject (and a profile) under an id that is stable for
 * that client and different for every other client, so two grantees cannot join what they hold,
 * and the internal subject id never reaches a grantee.
 */
/** Every pairwise subject id starts with this. */
export const PAIRWISE_SUBJECT_PREFIX = 'ppx:subject:';

/** Computed ids kept (each kind); past it the memo starts over. */
const MAX_MEMO = 10_000;

export class PairwiseIds {
  readonly #secret: KeyObject;
  /**
   * Computed ids, bounded, per kind; they never change for a given secret, so losing them is
   * harmless. Every MCP read presents its claims under the profile's id (its `instance_id`):
   * without the memo, that was an HMAC and a key import per read (bench:surfaces).
   */
  readonly #subjects = new Map<string, string>();
  readonly #profiles = new Map<string, string>();

  constructor(secret: string) {
    this.#secret = createSecretKey(Buffer.from(secret, 'base64url'));
  }

  subject(subjectId: string, clientId: string): string {
    return this.#memoized(this.#subjects, PAIRWISE_SUBJECT_PREFIX, 'subject', subjectId, clientId);
  }

  profile(profileId: string, clientId: string): string {
    return this.#memoized(this.#profiles, 'ppx:profile:', 'profile', profileId, clientId);
  }

  #memoized(memo: Map<string, string>, prefix: string, kind: string, id: string, clientId: string): string {
    const key = `${clientId}\u0000${id}`;
    let made = memo.get(key);
    if (made === undefined) {
      made = `${prefix}${this.#mac(kind, id, clientId)}`;
      if (memo.size >= MAX_MEMO) memo.clear();
      memo.set(key, made);
    }
    return made;
  }

  #mac(kind: string, id: string, clientId: string): string {
    return createHmac('sha256', this.#secret)
      .update(`${kind}\u0000${clientId}\u0000${id}`)
      .digest('base64url')
      .slice(0, 27);
  }
}
