import type { ProvenanceKind } from '../../../model/vocabulary.ts';
import { MS_PER_DAY } from '../../../model/vocabulary.ts';
import { PROVENANCE_PHRASES } from '../key-words.ts';

// Words the A2UI components add to those of the consent page (../describe.ts): how sure, where a
// claim came from (said by the person or not: the one distinction a person must never miss),
// and times relative to now ("expires in 23 days"). Now is an argument: nothing here reads the clock.

const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });

/** "12 March 2027". */
export function dayWords(iso: string): string {
  return DATE.format(new Date(iso));
}

/** Whether the person said it themselves; every other kind is inferred in one way or another. */
export function isStated(kind: ProvenanceKind): boolean {
  return kind === 'user_stated';
}

export function sourceWords(kind: ProvenanceKind): string {
  return kind === 'user_stated' ? 'You said this' : `Not said by you: ${PROVENANCE_PHRASES[kind]}`;
}

/** "fairly sure (78%)": lower case, as it always follows other words. */
export function confidenceWords(confidence: number): string {
  const pct = `${Math.round(confidence * 100)}%`;
  if (confidence < 0.4) return `not very sure (${pct})`;
  if (confidence < 0.7) return `fairly sure (${pct})`;
  if (confidence < 0.9) return `quite sure (${pct})`;
  return `very sure (${pct})`;
}

/** "in 23 days", "tomorrow", "today", "3 days ago": whole days, then months and years when far. */
export function relativeWords(iso: string, now: Date): string {
  const days = Math.round((Date.parse(iso) - now.getTime()) / MS_PER_DAY);
  const far = Math.abs(days);
  const span =
    far >= 730
      ? `${Math.round(far / 365)} years`
      : far >= 60
        ? `${Math.round(far / 30)} months`
        : far === 1
          ? '1 day'
          : `${far} days`;
  if (days === 0) return 'today';
  if (days === 1) return 'tomorrow';
  if (days === -1) return 'yesterday';
  return days > 0 ? `in ${span}` : `${span} ago`;
}

/** "Expires in 23 days (12 March 2027)". */
export function expiryWords(iso: string, now: Date, verb = 'Expires'): string {
  const when = relativeWords(iso, now);
  const past = Date.parse(iso) <= now.getTime();
  return past ? `Ended ${when} (${dayWords(iso)})` : `${verb} ${when} (${dayWords(iso)})`;
}

/** "A, B and C": every item, since a person judging access must see all of it. */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
