import { type Claim, qualifiedKey } from '../../../model/claim.ts';
import type { ProposalRecord } from '../../../model/proposal.ts';
import { keyWords, valueWords } from '../describe.ts';
import { onZeroOneScale } from './claim-card.ts';
import { button, card, column, list, row, slider, text } from './components.ts';
import { objectContents } from './data-model.ts';
import { idsFor, localPart, surfaceIdFor } from './ids.ts';
import type { ActionContextEntry, Component, SurfaceParts } from './messages.ts';
import { diffRow, suggestedChangeWords } from './profile-diff-view.ts';
import { confidenceWords, dayWords, isStated, sourceWords } from './words.ts';

// The changes apps suggested for one preference (issue 22 item 6): what it says now, once, then
// each suggestion as the change it would make (a ProfileDiffView row: who suggested it, and
// now → suggested in words), with accept / change first / turn down. Accepting a suggestion
// replaces what is there, so the person must see what is there before they do; five suggestions
// for one key are one card, not five identical ones.
//
// Card -> Column [title, about?, now, count?, List [per suggestion: Column [diff row Column
//   [by, change], replaces-yours?, slider?, actions Row [confirm, edit, reject]]]]

/** What of a pending proposal the card shows (the web app's review state carries this much). */
export type Suggestion = Pick<ProposalRecord, 'proposal_id' | 'client_id' | 'created_at' | 'claim'> & {
  readonly target_claim_id?: string | undefined;
};

export interface SuggestionGroup<S extends Suggestion = Suggestion> {
  /** The qualified key (`core` unprefixed). */
  readonly key: string;
  /** The stored claim the suggestions would replace, if any. */
  readonly current: Claim | undefined;
  /** Oldest first, as they came. */
  readonly suggestions: readonly S[];
}

/**
 * Pending proposals grouped by key, in the order of each key's first proposal. The current value
 * is the stored claim a proposal targeted when it was made (one its app could see); a key whose
 * proposals targeted nothing is new to the profile as far as they are concerned.
 */
export function groupSuggestions<S extends Suggestion>(
  proposals: readonly S[],
  claims: readonly Claim[],
): SuggestionGroup<S>[] {
  const byKey = new Map<string, S[]>();
  for (const p of proposals) {
    const key = qualifiedKey(p.claim);
    const same = byKey.get(key) ?? [];
    same.push(p);
    byKey.set(key, same);
  }
  return [...byKey].map(([key, suggestions]) => {
    const targets = new Set(suggestions.map((s) => s.target_claim_id).filter((t) => t !== undefined));
    return { key, current: claims.find((c) => targets.has(c.claim_id)), suggestions };
  });
}

const LABELS = { confirm: 'Accept the change', edit: 'Change it first', reject: 'Turn it down' } as const;

export function suggestionGroup(
  group: SuggestionGroup,
  clientName: (clientId: string) => string | undefined,
): SurfaceParts {
  const surfaceId = surfaceIdFor('suggestions', group.key);
  const id = idsFor(surfaceId);
  const words = keyWords(group.key);
  const { current } = group;
  const parts: Component[] = [];
  const body: string[] = [];
  const add = (c: Component) => {
    parts.push(c);
    body.push(c.id);
  };
  add(text(id('title'), words.name, 'h3'));
  if (words.description !== undefined) add(text(id('about'), words.description, 'caption'));
  add(text(id('now'), nowWords(current)));
  const n = group.suggestions.length;
  if (n > 1) add(text(id('count'), `${n} suggestions for this, oldest first.`, 'caption'));

  const edits: { key: string; valueNumber: number }[] = [];
  const rows = group.suggestions.map((s) => {
    const pid = localPart(s.proposal_id);
    const rowId = id(`p-${pid}`);
    const who = clientName(s.client_id) ?? 'an app you allowed';
    const change = diffRow(`${rowId}-change`, [
      `Suggested by ${who} on ${dayWords(s.created_at)}`,
      suggestedChangeWords(current, s.claim),
    ]);
    parts.push(...change);
    const children = [`${rowId}-change`];
    if (current !== undefined && isStated(current.source.kind)) {
      parts.push(text(`${rowId}-yours`, 'Accepting it replaces what you said yourself.'));
      children.push(`${rowId}-yours`);
    }
    const ref: ActionContextEntry[] = [
      { key: 'proposal_id', value: { literalString: s.proposal_id } },
      { key: 'claim_id', value: { literalString: s.claim.claim_id } },
    ];
    let edit: ActionContextEntry[] = [];
    if (typeof s.claim.value === 'number' && onZeroOneScale(s.claim)) {
      edits.push({ key: pid, valueNumber: Math.round(s.claim.value * 100) });
      parts.push(slider(`${rowId}-slider`, 'Move it to change it', { path: `/edit/${pid}` }, 0, 100));
      children.push(`${rowId}-slider`);
      edit = [{ key: 'value_percent', value: { path: `/edit/${pid}` } }];
    }
    // "Change it first" only where it can be changed here (the slider); the three look alike
    // (issue 26 item 1): an app's suggestion is not to be nudged in.
    const names =
      edit.length > 0 ? (['confirm', 'edit', 'reject'] as const) : (['confirm', 'reject'] as const);
    const actions = names.map((name) => {
      parts.push(
        text(`${rowId}-${name}-label`, LABELS[name]),
        button(
          `${rowId}-${name}`,
          `${rowId}-${name}-label`,
          { name, context: name === 'edit' ? [...ref, ...edit] : ref },
          false,
        ),
      );
      return `${rowId}-${name}`;
    });
    parts.push(row(`${rowId}-actions`, actions));
    children.push(`${rowId}-actions`);
    parts.push(column(rowId, children));
    return rowId;
  });
  add(list(id('suggestions'), rows));

  parts.unshift(card(id('card'), id('body')), column(id('body'), body));
  const data = [
    {
      path: '/suggestions',
      contents: objectContents({
        key: group.key,
        ...(current !== undefined ? { current } : {}),
        suggestions: group.suggestions,
      }),
    },
  ];
  if (edits.length > 0) data.push({ path: '/edit', contents: edits });
  return { surfaceId, root: id('card'), components: parts, data };
}

/** What the preference says now, said once for the whole group. */
function nowWords(current: Claim | undefined): string {
  if (current === undefined) return 'Now: not in your profile. Accepting a suggestion adds it.';
  const value = valueWords(current.value, qualifiedKey(current), current.units);
  return `Now: ${value}. ${sourceWords(current.source.kind)}, ${confidenceWords(current.confidence)}.`;
}
