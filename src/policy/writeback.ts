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
