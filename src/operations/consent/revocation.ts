import type { GrantRecord } from '../../model/grant-record.ts';
import type { FamilyEndReason } from '../../model/token-family.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import type { StoreReader } from '../../store/store.ts';
import { announce, endFamily } from '../changes.ts';
import type { AnyDeps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';
import { receiptOfEnd } from './receipts.ts';

/**
 * Revokes a grant and every refresh family that covers it, so neither its access tokens (the
 * grant is re-read on each request) nor its refresh tokens work again, on any instance. One
 * transaction (the caller's, when it has one): the grant and its families end together, with
 * their change events (none for a grant or family that had already ended). `reason` says why,
 * when it is not the person ending the grant: the families keep it, so that the client's next
 * refresh is told what happened (refresh.ts#endedAccess).
 */
export function revokeGrantEverywhere(
  deps: AnyDeps,
  grantId: string,
  now: Date,
  reason?: FamilyEndReason,
): Promise<GrantRecord | undefined> {
  const at = now.toISOString();
  return inTransaction(deps, async (tx) => {
    const before = await tx.store.getGrant(grantId);
    const revoked = await tx.store.revokeGrant(grantId, at);
    if (revoked && before?.status !== 'revoked') {
      await announce(tx, revoked.subject_id, 'grant_revoked', { grant_ids: [grantId] }, [grantId]);
      await receiptOfEnd(tx, revoked, now, { decision: 'revoked', reason });
    }
    for (const family of await tx.store.listTokenFamiliesByGrant(grantId)) {
      // Withdrawing one child of a package leaves the others (WIRE-NOTES §4): the family lives on
      // while another of its grants is active.
      if (await anyOtherActive(tx.store, family.grant_ids, grantId, now)) continue;
      await endFamily(tx, family.family_id, at, reason);
    }
    // The MCP resources it followed (2025-11-25 resources/subscribe) end with it.
    await tx.store.clearResourceSubscriptions(grantId);
    return revoked;
  });
}

async function anyOtherActive(
  store: Pick<StoreReader, 'getGrant'>,
  grantIds: readonly string[],
  except: string,
  now: Date,
) {
  for (const id of grantIds) {
    if (id === except) continue;
    const grant = await store.getGrant(id);
    if (grant && grantStatusAt(grant, now) === 'active') return true;
  }
  return false;
}
