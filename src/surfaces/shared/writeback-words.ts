import type { WritebackPolicy } from '../../model/vocabulary.ts';
import { confidentGuessReason, QUEUE_REASONS, WRITEBACK_RULES } from '../../model/writeback-rules.ts';

// What a grant's write-back policy lets its app do to the person's profile, in words, made from
// the very rules the write-back follows (model/writeback-rules.ts). Every place that
// describes a grant says it with this: the consent page and its A2UI form, the grant cards in
// /app, "Explain this" (issue 22 item 3).

/**
 * One sentence: what the app may do to the profile under `policy`. With the grant's operations,
 * an app without `propose_update` cannot send changes at all, and one with `confirm_update` can
 * accept its own, whatever its policy says.
 */
export function writePowerWords(policy: WritebackPolicy, operations?: readonly string[]): string {
  if (operations !== undefined && !operations.includes('propose_update')) {
    return 'It cannot change your profile.';
  }
  const rule = WRITEBACK_RULES[policy];
  if (!rule.mayPropose) return 'It cannot change your profile, not even suggest a change.';
  // A grant with confirm_update may accept its own suggestions (docs/writeback.md), so none of
  // them need wait for the person, whatever the policy queues.
  if (operations?.includes('confirm_update')) {
    return 'It can change your profile without asking you: it may accept its own suggestions, even to what you said yourself.';
  }
  switch (rule.appliesWithoutReview) {
    case 'none':
      return 'It can suggest changes to your profile; nothing changes until you accept them.';
    // What the person said themselves always waits (decideWriteback; propose.ts for a grantee's
    // claim marked as said by them).
    case 'low_risk':
      return `It can make small changes to your profile without asking you; the others wait for you to accept them: anything you said yourself, preferences you marked sensitive, and confident guesses about you.`;
    case 'all':
      return `It can change your profile without asking you; only changes to what you said yourself wait for you to accept them.`;
  }
}

/** writePowerWords for every policy, as the consent page's choice offers them. */
export const WRITEBACK_WORDS: Record<WritebackPolicy, string> = {
  forbidden: writePowerWords('forbidden'),
  review_required: writePowerWords('review_required'),
  auto_for_low_risk: writePowerWords('auto_for_low_risk'),
  allow: writePowerWords('allow'),
};

/**
 * Why a suggestion waits for the person, said as the person's own rule (the reason is the
 * provider's, never the app's words), or undefined for a reason this provider does not give.
 */
export function queuedBecauseWords(reason: string): string | undefined {
  switch (reason) {
    case QUEUE_REASONS.reviewEverything:
      return 'You asked to review every change from this app.';
    case QUEUE_REASONS.subjectStated:
      return 'You said this yourself, so only you can change it.';
    case QUEUE_REASONS.proposedAsStated:
      return 'It says you said this yourself; only you can say that.';
    case QUEUE_REASONS.sensitiveKey:
      return 'You marked this preference as sensitive, so changes to it wait for you.';
    case QUEUE_REASONS.highImpact:
      return 'Changes in this area always wait for you.';
  }
  const guess = /^an (inferred|derived_aggregate) claim with confidence ([0-9.]+) needs/.exec(reason);
  if (guess && reason === confidentGuessReason(guess[1]!, Number(guess[2]))) {
    return 'It is a confident guess about you, and guesses like that wait for you.';
  }
  return undefined;
}
