import type { WritebackPolicy } from './vocabulary.ts';

// The write-back rules as data, in the model so that the policy that applies them
// (policy/writeback.ts#decideWriteback) and the words that describe them to the person
// (surfaces/shared/writeback-words.ts) read one definition (issue 22 item 3).

/**
 * What each writeback policy lets a grantee do: whether it may send changes at all, and which of
 * them take effect without the subject.
 */
export interface WritebackRule {
  /** SPEC §6.2 rule 5: under `forbidden` the grantee's updates are rejected. */
  readonly mayPropose: boolean;
  /** Which of its changes apply without review: none, the low-risk ones (riskOf), or all. */
  readonly appliesWithoutReview: 'none' | 'low_risk' | 'all';
}

export const WRITEBACK_RULES = {
  forbidden: { mayPropose: false, appliesWithoutReview: 'none' },
  review_required: { mayPropose: true, appliesWithoutReview: 'none' },
  auto_for_low_risk: { mayPropose: true, appliesWithoutReview: 'low_risk' },
  allow: { mayPropose: true, appliesWithoutReview: 'all' },
} as const satisfies Record<WritebackPolicy, WritebackRule>;

/**
 * Why a proposal waits for the subject, as stored with it (and echoed to the grantee). The person
 * is told these as their own rules (writeback-words.ts#queuedBecauseWords).
 */
export const QUEUE_REASONS = {
  reviewEverything: 'the grant requires the subject to review every update',
  subjectStated: 'the subject stated this preference; only they can change it',
  /** Given by operations/writeback/propose.ts to a grantee's claim marked `user_stated`. */
  proposedAsStated: 'a claim proposed as stated by the subject needs their confirmation',
  sensitiveKey: 'the subject marked this key sensitive',
  highImpact: 'the namespace is high-impact',
} as const;

/** The reason riskOf gives an inferred or aggregate claim asserted with high confidence. */
export function confidentGuessReason(kind: string, confidence: number): string {
  return `an ${kind} claim with confidence ${confidence} needs the subject's review`;
}
