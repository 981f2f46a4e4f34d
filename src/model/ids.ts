// The Web Crypto global (Node and browsers alike: the model is bundled into the web app too), not
// node:crypto, which a browser bundle cannot load.
const randomUUID = () => globalThis.crypto.randomUUID();

// Identifiers are URN-style `ppx:<type>:<id>` (SPEC §5). Fresh ids are random UUIDs, so an id
// is never reused across distinct objects; the store's unique constraints back that up.

export type IdType =
  | 'profile'
  | 'claim'
  | 'modifier'
  | 'grant'
  | 'evidence'
  | 'view'
  | 'provider'
  | 'event'
  | 'proposal';

export const ID_BODY = '[A-Za-z0-9_.:-]+';

export function newId(type: IdType): string {
  return `ppx:${type}:${randomUUID()}`;
}

/**
 * A fresh id that sorts by creation time: a UUIDv7 (RFC 9562), 48 bits of Unix milliseconds then
 * 74 random bits. For audit events, whose time is part of the event anyway: the unique index on
 * their ids then grows at its end instead of at a random page (issue 10: random ids made each
 * insert touch a cold page of a large index). Not for ids whose creation time is not already told.
 */
export function newTimeOrderedId(type: IdType, ms: number = Date.now()): string {
  // randomUUID draws from a pool of entropy (randomBytes per id was 7 % of a small read); its
  // first 48 bits become the time, and its version nibble 7.
  const random = randomUUID();
  const time = (Math.max(0, Math.trunc(ms)) % 2 ** 48).toString(16).padStart(12, '0');
  return `ppx:${type}:${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}

export function idPattern(type: IdType): RegExp {
  return new RegExp(`^ppx:${type}:${ID_BODY}$`);
}

export function isId(type: IdType, value: string): boolean {
  return idPattern(type).test(value);
}
