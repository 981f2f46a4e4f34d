import { randomUUID } from 'node:crypto';

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

export function idPattern(type: IdType): RegExp {
  return new RegExp(`^ppx:${type}:${ID_BODY}$`);
}

export function isId(type: IdType, value: string): boolean {
  return idPattern(type).test(value);
}
