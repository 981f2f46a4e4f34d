import { type Claim, qualifiedKey } from '../../model/claim.ts';
import type { ClaimChange, ClaimHistoryInput } from '../../model/claim-history.ts';
import type { PpxFailure } from '../../model/errors.ts';
import type { ActorRef } from '../../model/proposal.ts';
import type { StoreTx } from '../../store/store.ts';

/** A failure raised inside a transaction so that it rolls back; turned back into a Result. */
export class Refusal extends Error {
  readonly failure: PpxFailure;

  constructor(failure: PpxFailure) {
    super(failure.description);
    this.failure = failure;
  }
}

/**
 * The stored claim a proposal for `namespace.key` updates: the one with `preferId` when it has
 * that key, else the first under that key (claims come ordered by claim_id), else none.
 */
export function findTarget(
  claims: readonly Claim[],
  proposal: { namespace: string; key: string },
  preferId?: string,
): Claim | undefined {
  const key = qualifiedKey(proposal);
  const same = claims.filter((c) => qualifiedKey(c) === key);
  return same.find((c) => c.claim_id === preferId) ?? same[0];
}

/** Who wrote a claim, under which grant and proposal: recorded in its history. */
export interface Provenance {
  readonly actor: ActorRef;
  readonly grantId?: string | undefined;
  readonly proposalId?: string | undefined;
}

export function historyEntry(
  profileId: string,
  claimId: string,
  claim: Claim | null,
  change: ClaimChange,
  prov: Provenance,
  at: Date,
): ClaimHistoryInput {
  return {
    claim_id: claimId,
    profile_id: profileId,
    at: at.toISOString(),
    claim,
    change,
    actor: prov.actor,
    ...(prov.grantId !== undefined ? { grant_id: prov.grantId } : {}),
    ...(prov.proposalId !== undefined ? { proposal_id: prov.proposalId } : {}),
  };
}

/** Writes claims with their history entries and marks the profile updated (inside a transaction). */
export async function writeClaims(
  store: StoreTx,
  profileId: string,
  writes: readonly { claim: Claim; change: ClaimChange; prov: Provenance }[],
  at: Date,
): Promise<void> {
  if (writes.length === 0) return;
  await store.putClaims(
    profileId,
    writes.map((w) => w.claim),
  );
  await store.appendClaimHistory(
    writes.map((w) => historyEntry(profileId, w.claim.claim_id, w.claim, w.change, w.prov, at)),
  );
  await store.touchProfile(profileId, at.toISOString());
}

/** A claim as confirmed by the subject now (SPEC §11): review confirmed, last_confirmed_at set. */
export function confirmedClaim(claim: Claim, at: Date): Claim {
  return {
    ...claim,
    lifecycle: { ...claim.lifecycle, last_confirmed_at: at.toISOString() },
    review: { ...claim.review, review_status: 'confirmed' },
  };
}
