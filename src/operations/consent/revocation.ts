import { grantStatusAt } from '../../policy/grant-status.ts';
import type { Deps } from '../deps.ts';

/**
 * Revokes a grant and every refresh family that covers it, so neither its access tokens (the
 * grant is re-read on each request) nor its refresh tokens work again, on any instance.
 */
export async function revokeGrantEverywhere(deps: Deps, grantId: string, now: Date) {
  const at = now.toISOString();
  const revoked = await deps.store.revokeGrant(grantId, at);
  for (const family of await deps.store.listTokenFamiliesByGrant(grantId)) {
    // Withdrawing one child of a package leaves the others (WIRE-NOTES §4): the family lives on
    // while another of its grants is active.
    if (await anyOtherActive(deps, family.grant_ids, grantId, now)) continue;
    await deps.store.revokeTokenFamily(family.family_id, at);
  }
  return revoked;
}

async function anyOtherActive(deps: Deps, grantIds: readonly string[], except: string, now: Date) {
  for (const id of grantIds) {
    if (id === except) continue;
    const grant = await deps.store.getGrant(id);
    if (grant && grantStatusAt(grant, now) === 'active') return true;
  }
  return false;
}
