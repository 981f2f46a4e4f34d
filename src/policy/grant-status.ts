import type { ConsentGrant } from '../model/consent-grant.ts';
import type { GrantStatus } from '../model/vocabulary.ts';

/**
 * The status a grant has at `now`. The stored status says what the subject decided (active,
 * revoked, pending); expiry is a matter of time, so it is computed here rather than written back
 * (SPEC §6.2 rule 4: an expired grant MUST NOT authorize new access).
 */
export function grantStatusAt(grant: Pick<ConsentGrant, 'status' | 'expires_at'>, now: Date): GrantStatus {
  if (grant.status !== 'active') return grant.status;
  if (grant.expires_at === undefined) return 'active';
  const expires = Date.parse(grant.expires_at);
  // Deny by default (SPEC §6.2 rule 1): an expiry that cannot be read counts as passed.
  if (Number.isNaN(expires) || expires <= now.getTime()) return 'expired';
  return 'active';
}
