import { isDeepStrictEqual } from 'node:util';
import { type Claim, qualifiedKey } from '../model/claim.ts';
import { extensionFor } from '../model/extensions/index.ts';
import type { WritebackPolicy } from '../model/vocabulary.ts';
import {
  confidentGuessReason,
  QUEUE_REASONS,
  WRITEBACK_RULES,
  type WritebackRule,
} from '../model/writeback-rules.ts';

/** What happens to one proposed claim under a grant's writeback policy (SPEC §6.6). */
export type WritebackDecision =
  | { readonly kind: 'refuse' }
  | { readonly kind: 'queue'; readonly reason: string }
  | { readonly kind: 'apply' };

/** Confidence at and above which an inferred claim counts as a strong assertion (SPEC §4.4). */
export const HIGH_CONFIDENCE = 0.7;

export interface WritebackFacts {
  /** The claim currently stored under the same namespace and key, if any. */
  readonly existing?: Claim | undefined;
  /** Keys the subject marked sensitive (normalized: core unprefixed, others `namespace.key`). */
  readonly sensitiveKeys?: ReadonlySet<string>;
}

/**
 * Decides the fate of a proposed claim. Pure; the write-back operation applies the decision.
 * Whatever the policy, a proposal never silently overwrites what the subject stated.
 */
export function decideWriteback(
  policy: WritebackPolicy,
  proposal: Claim,
  facts: WritebackFacts = {},
): WritebackDecision {
  const rule: WritebackRule = WRITEBACK_RULES[policy];
  // SPEC §6.2 rule 5: writeback `forbidden` rejects updates from the grantee.
  if (!rule.mayPropose) return { kind: 'refuse' };
  if (rule.appliesWithoutReview === 'none') return { kind: 'queue', reason: QUEUE_REASONS.reviewEverything };
  if (facts.existing?.source.kind === 'user_stated') {
    return { kind: 'queue', reason: QUEUE_REASONS.subjectStated };
  }
  if (rule.appliesWithoutReview === 'all') return { kind: 'apply' };
  const risk = riskOf(proposal, facts);
  return risk === undefined ? { kind: 'apply' } : { kind: 'queue', reason: risk };
}

/**
 * Why a proposal is not low risk, or undefined when it is (`auto_for_low_risk`). Low risk means:
 * not an inferred or aggregate-derived claim asserted with high confidence (SPEC §10 MUST NOT 2:
 * no auto-written high-impact inferences; §4.4: inference is not fact), not a key the subject
 * marked sensitive, and not in a namespace its extension declares high-impact.
 */
export function riskOf(proposal: Claim, facts: WritebackFacts = {}): string | undefined {
  const kind = proposal.source.kind;
  if ((kind === 'inferred' || kind === 'derived_aggregate') && proposal.confidence >= HIGH_CONFIDENCE) {
    return confidentGuessReason(kind, proposal.confidence);
  }
  if (facts.sensitiveKeys?.has(qualifiedKey(proposal))) return QUEUE_REASONS.sensitiveKey;
  if (extensionFor(proposal.namespace)?.privacy_guidance?.high_impact) return QUEUE_REASONS.highImpact;
  return undefined;
}

// The person-owned fields of a claim (issue 22 item 2): whether the person sees it and may edit
// it (`review.user_visible`, `review.user_editable`), when they last confirmed it
// (`lifecycle.last_confirmed_at`) and that they said it themselves (provenance `user_stated`).
// They are the person's alone: a grantee can neither set nor claim them.

/**
 * Why a grantee's claim must be refused, or undefined: hiding a claim from the person or locking
 * it against their edits is never a grantee's call, so asking for it is a bad request rather than
 * something to quietly drop (the grantee would believe the claim hidden).
 */
export function personOwnedProblem(claim: Pick<Claim, 'review'>): string | undefined {
  if (claim.review?.user_visible === false) {
    return 'an app cannot hide a preference from the person (review.user_visible is theirs to set)';
  }
  if (claim.review?.user_editable === false) {
    return 'an app cannot stop the person from changing a preference (review.user_editable is theirs to set)';
  }
  return undefined;
}

/**
 * A grantee's claim as the provider keeps it: the person-owned fields dropped, and a claim marked
 * as said by the person relabelled `imported` from the grantee (`origin` its client id), since only
 * the person says what they said. `claimedStated` tells the caller to queue it for the person
 * whatever the policy. The confirmation is dropped rather than refused: a grantee that writes back
 * a claim it read carries the stored date, which is no claim of its own.
 */
export function granteeClaim<C extends Claim>(
  claim: C,
  clientId: string,
): { readonly claim: C; readonly claimedStated: boolean } {
  const { review, lifecycle, ...rest } = claim;
  const status = review?.review_status;
  const { last_confirmed_at: _confirmed, ...keptLifecycle } = lifecycle ?? {};
  const claimedStated = claim.source.kind === 'user_stated';
  const out = {
    ...rest,
    ...(Object.keys(keptLifecycle).length > 0 ? { lifecycle: keptLifecycle } : {}),
    ...(status !== undefined ? { review: { review_status: status } } : {}),
    ...(claimedStated ? { source: { ...claim.source, kind: 'imported' as const, origin: clientId } } : {}),
  } as C;
  return { claim: out, claimedStated };
}

/**
 * Whether a grant's `confirm_update` may confirm a claim or write a proposal over it: not one the
 * person stated. Their own words are theirs to confirm or replace (403 access_denied otherwise);
 * for the rest, the person delegated confirming to the grant when they gave it confirm_update.
 */
export function grantMayConfirm(claim: Pick<Claim, 'source'>): boolean {
  return claim.source.kind !== 'user_stated';
}

/**
 * Whether the subject's write of `proposed` over `stored` only confirms it (issue 22 item 7):
 * everything the person sets is as stored — the value, how it is read, where it applies, its
 * words — and what differs is at most where it came from, how sure it is, its review and its
 * lifecycle. Confirming is confirming: the stored provenance stays and the confirmation is set,
 * rather than a value the person did not set being relabelled as said by them.
 */
export function onlyConfirms(stored: Claim, proposed: Omit<Claim, 'claim_id'>): boolean {
  const meaning = (c: Omit<Claim, 'claim_id'> & { claim_id?: string }) => {
    const { claim_id: _i, source: _s, confidence: _c, review: _r, lifecycle: _l, ...rest } = c;
    return JSON.parse(JSON.stringify(rest));
  };
  return isDeepStrictEqual(meaning(stored), meaning(proposed));
}
