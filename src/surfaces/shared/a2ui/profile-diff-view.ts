import { type Claim, qualifiedKey } from '../../../model/claim.ts';
import type { ClaimDiff, ProfileDiff } from '../../../operations/writeback/diff.ts';
import { keyWords, valueWords } from '../describe.ts';
import { column, list, text } from './components.ts';
import { objectContents } from './data-model.ts';
import { idsFor, localPart, surfaceIdFor } from './ids.ts';
import type { Component, SurfaceParts } from './messages.ts';
import { confidenceWords, dayWords, sourceWords } from './words.ts';

// ProfileDiffView (bindings/a2ui.md): what changed in a profile between two instants, one row per
// claim added, changed or removed (operations/writeback/diff.ts). The data model is the diff
// (`{added, changed, removed}`), at `/diff`.
//
// Column [title, range, summary, List [row per claim: Column [what, detail]] | nothing-changed]

export interface ProfileDiffInput {
  readonly profile_id: string;
  readonly from: string;
  readonly to: string;
  readonly diff: ProfileDiff;
}

export function profileDiffView(input: ProfileDiffInput): SurfaceParts {
  const surfaceId = surfaceIdFor('diff', input.profile_id);
  const id = idsFor(surfaceId);
  const { added, changed, removed } = input.diff;
  const parts: Component[] = [
    text(id('title'), 'Changes to your profile', 'h3'),
    text(id('range'), `From ${dayWords(input.from)} to ${dayWords(input.to)}`, 'caption'),
    text(id('summary'), `${added.length} added, ${changed.length} changed, ${removed.length} removed`),
  ];
  const body = parts.map((c) => c.id);
  const rows: string[] = [];
  const kinds = [
    ['added', added],
    ['changed', changed],
    ['removed', removed],
  ] as const;
  for (const [kind, diffs] of kinds) {
    for (const d of diffs) {
      // One row per claim: a claim is in one list only, so its id names the row.
      const rowId = id(`row-${localPart(d.claim_id)}`);
      parts.push(...diffRow(rowId, rowWords(kind, d)));
      rows.push(rowId);
    }
  }
  if (rows.length === 0) {
    parts.push(text(id('nothing'), 'Nothing changed in this time.'));
    body.push(id('nothing'));
  } else {
    parts.push(list(id('rows'), rows));
    body.push(id('rows'));
  }
  parts.unshift(column(id('view'), body));
  return {
    surfaceId,
    root: id('view'),
    components: parts,
    data: [{ path: '/diff', contents: objectContents(input.diff) }],
  };
}

function name(c: Claim): string {
  return keyWords(qualifiedKey(c)).name;
}

function value(c: Claim): string {
  return valueWords(c.value, qualifiedKey(c), c.units);
}

/**
 * One row of the view: what changed (a heading) and how, in words. The suggestion groups
 * (suggestion-group.ts) draw a suggestion's change with the same row.
 */
export function diffRow(rowId: string, [what, detail]: readonly [string, string]): Component[] {
  return [
    text(`${rowId}-what`, what, 'h4'),
    text(`${rowId}-detail`, detail),
    column(rowId, [`${rowId}-what`, `${rowId}-detail`]),
  ];
}

/**
 * How a suggested claim differs from the stored one it would replace (none: a new preference), in
 * the words of a change still to come: what it would be, where it would then come from, how sure.
 */
export function suggestedChangeWords(before: Claim | undefined, after: Claim): string {
  if (before === undefined) return `${value(after)}. ${sourceWords(after.source.kind)}.`;
  const what: string[] = [];
  what.push(value(before) === value(after) ? `The same as now: ${value(after)}.` : `To ${value(after)}.`);
  if (before.source.kind !== after.source.kind) what.push(`${sourceWords(after.source.kind)}.`);
  if (before.confidence !== after.confidence) {
    what.push(`How sure: ${confidenceWords(after.confidence)}.`);
  }
  return what.join(' ');
}

function rowWords(kind: 'added' | 'changed' | 'removed', d: ClaimDiff): [string, string] {
  if (kind === 'added' && d.after) {
    return [`Added: ${name(d.after)}`, `${value(d.after)}. ${sourceWords(d.after.source.kind)}.`];
  }
  if (kind === 'removed' && d.before) return [`Removed: ${name(d.before)}`, `It was ${value(d.before)}.`];
  const before = d.before as Claim;
  const after = d.after as Claim;
  const what: string[] = [];
  if (value(before) !== value(after)) what.push(`From ${value(before)} to ${value(after)}.`);
  if (before.source.kind !== after.source.kind) what.push(`${sourceWords(after.source.kind)}.`);
  if (before.confidence !== after.confidence) {
    what.push(
      `How sure: was ${confidenceWords(before.confidence)}, now ${confidenceWords(after.confidence)}.`,
    );
  }
  if (what.length === 0) what.push('Its details changed; its value did not.');
  return [`Changed: ${name(after)}`, what.join(' ')];
}
