import { createHmac } from 'node:crypto';

/**
 * Pairwise identifiers: a grantee sees a subject (and a profile) under an id that is stable for
 * that client and different for every other client, so two grantees cannot join what they hold,
 * and the internal subject id never reaches a grantee.
 */
export class PairwiseIds {
  readonly #secret: Buffer;

  constructor(secret: string) {
    this.#secret = Buffer.from(secret, 'base64url');
  }

  subject(subjectId: string, clientId: string): string {
    return `ppx:subject:${this.#mac('subject', subjectId, clientId)}`;
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
