import { type Claim, type ClaimShape, qualifiedKey } from '../model/claim.ts';
import type { Reach, Scope } from './scope.ts';

/**
 * Whether a claim may be shown under a scope. Claims that fail are omitted silently: the caller
 * must not be able to tell them from claims that do not exist (bindings/http.md). It reads the
 * claim's shape only (model/claim.ts#ClaimShape): the store keeps change times per shape, and a
 * grant's freshness is computed with this same function (operations/reads/freshness.ts).
 */
export function isClaimVisible(scope: Reach, claim: ClaimShape): boolean {
  if (!isInScope(scope, claim)) return false;
  if (isCrossDomain(claim, scope.useDomains)) return crossDomainAllows(scope, claim);
  return true;
}

/** Namespace, key and review checks, before any cross-domain rule. */
function isInScope(scope: Reach, claim: ClaimShape): boolean {
  if (!scope.namespaces.has(claim.namespace)) return false;
  if (scope.keys !== undefined && !scope.keys.has(qualifiedKey(claim))) return false;
  // A claim the subject rejected is not part of their profile.
  return claim.review?.review_status !== 'rejected';
}

/**
 * SPEC §13.2: the claims withheld only because they are cross-domain under `allow_with_review`.
 * They never cross themselves; they are what trait mapping (policy/trait-mapping.ts) may draw on
 * once the subject has approved the transfer.
 */
export function reviewableCrossDomainClaims(scope: Scope, claims: readonly Claim[]): Claim[] {
  return claims.filter((c) => isReviewableCrossDomain(scope, c));
}

/** One claim of reviewableCrossDomainClaims: in scope, cross-domain, under `allow_with_review`. */
export function isReviewableCrossDomain(scope: Reach, claim: ClaimShape): boolean {
  return (
    scope.crossDomain === 'allow_with_review' &&
    isInScope(scope, claim) &&
    isCrossDomain(claim, scope.useDomains)
  );
}

/**
 * Everything isClaimVisible reads of a scope, as a string: two scopes with the same key show the
 * same claims (operations/reads/visible-profile.ts reuses a filtered list by it). Keep it in step.
 */
export function visibilityKey(scope: Scope): string {
  return JSON.stringify([
    [...scope.namespaces],
    scope.keys ? [...scope.keys] : null,
    scope.useDomains,
    scope.crossDomain,
  ]);
}

export function visibleClaims(scope: Scope, claims: readonly Claim[]): Claim[] {
  return claims.filter((c) => isClaimVisible(scope, c));
}

/**
 * The domains a claim belongs to: a domain namespace's claims belong to that domain; a core
 * claim belongs to the domains in its `applicability`, or to every domain when it names none
 * (core keys are designed to travel, extensions/core.schema.json).
 */
export function homeDomains(claim: ClaimShape): readonly string[] | 'any' {
  if (claim.namespace !== 'core') return [claim.namespace];
  const domains = claim.applicability?.domains;
  return domains && domains.length > 0 ? domains : 'any';
}

function isCrossDomain(claim: ClaimShape, useDomains: readonly string[]): boolean {
  const home = homeDomains(claim);
  return home !== 'any' && !home.some((d) => useDomains.includes(d));
}

/** SPEC §6.5: what each `cross_domain_transfer` value lets through for a cross-domain claim. */
function crossDomainAllows(scope: Reach, claim: ClaimShape): boolean {
  switch (scope.crossDomain) {
    case 'deny':
      return false;
    case 'allow_with_review':
      // The raw claim never crosses (SPEC §13.2); only its mapped core traits may, once the
      // subject has approved the transfer (reviewableCrossDomainClaims, trait-mapping.ts).
      return false;
    case 'allow_if_same_provider':
      // Claims that originated at this provider may cross; imported ones came from elsewhere.
      return claim.source.kind !== 'imported';
    case 'allow':
      return true;
  }
}
