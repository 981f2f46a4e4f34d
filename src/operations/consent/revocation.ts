import type { Deps } from '../deps.ts';

/**
 * Revokes a grant and every refresh family that covers it, so neither its access tokens (the
 * grant is re-read on each request) nor its refresh tokens work again, on any instance.
 */
export async function revokeGrantEverywhere(deps: Deps, grantId: string, now: Date) {
  const at = now.toISOString();
  const revoked = await deps.store.revokeGrant(grantId, at);
  for (const family of await deps.store.listTokenFamiliesByGrant(grantId)) {
    await deps.store.revokeTokenFamily(family.family_id, at);
  }
  return revoked;
}
