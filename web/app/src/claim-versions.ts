import { qualifiedKey } from '../../../src/model/claim.ts';
import type { ClaimHistoryEntry } from '../../../src/model/claim-history.ts';
import { sourceWords } from '../../../src/surfaces/shared/a2ui/words.ts';
import { valueWords } from '../../../src/surfaces/shared/describe.ts';

// A preference's history (list_claim_history), as the person reads it: every version of every
// claim that ever held the key (a claim removed when the person picked another side of a
// conflict included), newest first, each with its value in words, who said it and when, and what
// replaced it.

export interface Version {
  readonly claimId: string;
  readonly seq: number;
  readonly at: string;
  /** "Small, stylish hotel", or "Removed" for a deletion. */
  readonly value: string;
  /** "You changed it", "Fragrance Finder suggested it and it was applied", "An import brought it". */
  readonly who: string;
  /** Where the value came from, as the cards say it ("You said this"); none for a deletion. */
  readonly source?: string;
  /** The next version of the same claim: when, and what it said (or that it was removed). */
  readonly replacedBy?: { readonly at: string; readonly value: string };
}

const DID: Record<ClaimHistoryEntry['change'], string> = {
  created: 'added it',
  updated: 'changed it',
  confirmed: 'confirmed it',
  edited: 'changed a suggestion and accepted it',
  deleted: 'removed it',
  applied_proposal: 'suggested it, and it was applied',
  imported: 'brought it in from a file',
};

/** Who did it and what, in words; `appName` names an app by its client id. */
export function whoWords(entry: ClaimHistoryEntry, appName: (id: string) => string): string {
  const did = DID[entry.change];
  if (entry.actor.kind === 'subject') {
    // The person accepting an app's suggestion is not the app applying it.
    if (entry.change === 'applied_proposal') return 'You accepted a suggested change';
    return `You ${did}`;
  }
  if (entry.actor.kind === 'operator')
    return entry.change === 'imported' ? 'An import brought it in' : `The service ${did}`;
  return `${appName(entry.actor.id)} ${did}`;
}

/** The versions of the key, newest first. */
export function versionsOfKey(
  entries: readonly ClaimHistoryEntry[],
  key: string,
  appName: (id: string) => string,
): Version[] {
  const ids = new Set(
    entries.filter((e) => e.claim !== null && qualifiedKey(e.claim) === key).map((e) => e.claim_id),
  );
  const mine = entries.filter((e) => ids.has(e.claim_id)).sort((a, b) => a.seq - b.seq);
  const wordsOf = (e: ClaimHistoryEntry) =>
    e.claim === null ? 'Removed' : valueWords(e.claim.value, key, e.claim.units);
  const out = mine.map((e, i): Version => {
    const next = mine.slice(i + 1).find((n) => n.claim_id === e.claim_id);
    return {
      claimId: e.claim_id,
      seq: e.seq,
      at: e.at,
      value: wordsOf(e),
      who: whoWords(e, appName),
      ...(e.claim !== null ? { source: sourceWords(e.claim.source.kind) } : {}),
      ...(next !== undefined ? { replacedBy: { at: next.at, value: wordsOf(next) } } : {}),
    };
  });
  return out.reverse();
}

/** When a claim was last written (its newest history entry), for "You said … on 3 March". */
export function lastWritten(
  entries: readonly ClaimHistoryEntry[],
  claimId: string,
): ClaimHistoryEntry | undefined {
  let last: ClaimHistoryEntry | undefined;
  for (const e of entries) if (e.claim_id === claimId && (last === undefined || e.seq > last.seq)) last = e;
  return last;
}
