import { type ClaimShape, qualifiedKey } from '../model/claim.ts';
import type { ContextModifier } from '../model/context-modifier.ts';
import { touchedKeys } from '../resolve/modifiers.ts';
import type { Reach } from './scope.ts';
import { homeDomains, isClaimVisible, isReviewableCrossDomain } from './visibility.ts';

// Whether a deletion touches what a grant could have been shown (issue 22 item 1). A stored
// answer (an A2A task) holds what its grant saw, so a deletion must remove the answers that could
// hold the deleted data, and only those: a claim outside a grant must be indistinguishable from
// an absent one (bindings/http.md), and so must its deletion. Pure: the caller brings the
// profile as it was and the grant's approved cross-domain source domains.

/** What one deletion removes, and the profile it removed it from. */
export interface Deletion {
  readonly claims: readonly ClaimShape[];
  readonly modifiers: readonly ContextModifier[];
  /** Every claim of the profile before the deletion: what a deleted modifier could act on. */
  readonly before: readonly ClaimShape[];
}

/**
 * Whether a grant of this reach could have seen anything the deletion removes: a deleted claim it
 * could read; one whose mapped core traits it could read (SPEC §13.2, a source domain the person
 * approved for it); or a deleted context modifier that changes a claim it could read (SPEC §5.3:
 * a modifier applies only to the claims a read shows).
 */
export function deletionReaches(
  reach: Reach,
  deletion: Deletion,
  approvedSourceDomains: ReadonlySet<string>,
): boolean {
  const sees = (claim: ClaimShape) =>
    isClaimVisible(reach, claim) || (isReviewableCrossDomain(reach, claim) && mapsFrom(claim));
  const mapsFrom = (claim: ClaimShape) => {
    const home = homeDomains(claim);
    return home !== 'any' && home.some((d) => approvedSourceDomains.has(d));
  };
  if (deletion.claims.some(sees)) return true;
  if (deletion.modifiers.length === 0) return false;
  const seenKeys = new Set(deletion.before.filter(sees).map(qualifiedKey));
  return deletion.modifiers.some((m) => [...touchedKeys(m)].some((k) => seenKeys.has(k)));
}
