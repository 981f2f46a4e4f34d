import { type Claim, normalizeKey, qualifiedKey } from '../../../../src/model/claim.ts';
import { confidenceWords, sourceWords } from '../../../../src/surfaces/shared/a2ui/words.ts';
import { keyWords, valueWords } from '../../../../src/surfaces/shared/describe.ts';
import { editProblem, refusalWords, valueKind } from '../../../../src/surfaces/shared/value-kind.ts';
import { ActionError, runAction } from '../actions.ts';
import { appName, appNames } from '../app-names.ts';
import { editedClaim } from '../claim-edits.ts';
import { versionsOfKey } from '../claim-versions.ts';
import { conflictPanel } from '../conflict-panel.ts';
import { findConflicts } from '../conflicts.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { claimHistory } from '../history-store.ts';
import { valueEditor } from '../value-editor.ts';
import { dayWords } from '../words.ts';

// One preference (/app/data/preference?key=…): what it says now and a form to change it (any
// kind of value, value-editor.ts), its sources side by side when they disagree, and its history:
// every version, who said it and when, and what replaced it (docs/web-app.md).

const PREFERENCE_PATH = '/app/data/preference';

/** The address of one preference's page. */
export function preferencePath(key: string): string {
  return `${PREFERENCE_PATH}?key=${encodeURIComponent(key)}`;
}

export const preferenceView: View = {
  path: PREFERENCE_PATH,
  title: 'One preference',
  inNav: false,
  sections: (ctx) => {
    const key = normalizeKey(new URLSearchParams(location.search).get('key') ?? '');
    return [nowSection(ctx, key), conflictSection(ctx, key), historySection(ctx, key)];
  },
};

function claimsOf(ctx: AppContext, key: string): Claim[] {
  return (ctx.state()?.claims ?? []).filter((c) => qualifiedKey(c) === key);
}

function nowSection(ctx: AppContext, key: string): Section {
  const claims = claimsOf(ctx, key);
  const loaded = ctx.state() !== undefined;
  return {
    id: 'preference-now',
    key: JSON.stringify([key, claims, loaded]),
    build: () => {
      const name = key === '' ? 'No preference chosen' : keyWords(key).name;
      const el = h(
        'section',
        { id: 'preference-now', 'aria-labelledby': 'preference-now-h' },
        h('h2', { id: 'preference-now-h', tabindex: '-1' }, name),
      );
      const about = keyWords(key).description;
      if (key !== '' && about !== undefined) el.append(h('p', { class: 'muted' }, about));
      if (!loaded) el.append(h('p', { class: 'muted' }, 'Loading…'));
      else if (claims.length === 0)
        el.append(
          h('p', {}, 'This is not in your profile. ', h('a', { href: '/app' }, 'See your preferences')),
        );
      for (const [i, claim] of claims.entries()) el.append(claimBlock(ctx, claim, i, claims.length));
      return el;
    },
  };
}

function claimBlock(ctx: AppContext, claim: Claim, i: number, of: number): HTMLElement {
  const key = qualifiedKey(claim);
  const name = keyWords(key).name;
  const block = h(
    'div',
    { class: 'a2-card plain-card', id: `now-${i}` },
    h('h3', {}, of > 1 ? `${name}, as one source says it (${i + 1} of ${of})` : 'What it says now'),
    h('p', { class: 'side-value' }, valueWords(claim.value, key, claim.units)),
    h(
      'p',
      { class: 'a2-caption' },
      `${sourceWords(claim.source.kind)}, ${confidenceWords(claim.confidence)}.`,
    ),
  );
  const kind = valueKind(claim);
  const problem = editProblem(claim);
  if (kind === undefined || problem !== undefined) {
    block.append(h('p', { class: 'muted' }, problem ?? 'This cannot be changed here.'));
    return block;
  }
  block.append(
    h('h4', {}, 'Change it'),
    valueEditor({
      id: `edit-${i}`,
      claim,
      kind,
      name,
      save: async (value) => {
        try {
          await runAction(ctx.csrf, 'propose_updates', {
            claims: [
              {
                ...editedClaim(claim, value),
                claim_id: claim.claim_id,
                ...(claim.applicability !== undefined ? { applicability: claim.applicability } : {}),
              },
            ],
          });
          ctx.notify('Changed. It now says what you set; what it said before is in its history.');
          return undefined;
        } catch (e) {
          return e instanceof ActionError ? refusalWords(e.message) : 'It was not changed. Try again.';
        }
      },
    }),
  );
  return block;
}

function conflictSection(ctx: AppContext, key: string): Section {
  const state = ctx.state();
  const pending = (state?.pending_reviews ?? []).filter((p) => p.kind === 'writeback_proposal');
  const conflicts = findConflicts(
    claimsOf(ctx, key),
    pending.filter((p) => qualifiedKey(p.claim) === key),
  );
  const history = conflicts.length > 0 ? claimHistory(ctx) : undefined;
  return {
    id: 'preference-conflicts',
    key: JSON.stringify([key, conflicts, history?.length ?? -1, appNames()]),
    build: () => {
      const el = h('section', { id: 'preference-conflicts', 'aria-labelledby': 'preference-conflicts-h' });
      if (conflicts.length === 0) {
        el.hidden = true;
        return el;
      }
      el.append(h('h2', { id: 'preference-conflicts-h', tabindex: '-1' }, 'Where your sources disagree'));
      for (const c of conflicts) el.append(conflictPanel(ctx, c, history));
      return el;
    },
  };
}

function historySection(ctx: AppContext, key: string): Section {
  const history = key === '' ? [] : claimHistory(ctx);
  const versions = history === undefined ? undefined : versionsOfKey(history, key, appName);
  return {
    id: 'preference-history',
    key: JSON.stringify([key, versions ?? null, appNames()]),
    build: () => {
      const el = h(
        'section',
        { id: 'preference-history', 'aria-labelledby': 'preference-history-h' },
        h('h2', { id: 'preference-history-h', tabindex: '-1' }, 'Its history'),
      );
      if (versions === undefined) el.append(h('p', { class: 'muted' }, 'Loading…'));
      else if (versions.length === 0)
        el.append(h('p', { class: 'muted' }, 'Nothing was ever stored for this.'));
      else {
        el.append(
          h('p', { class: 'muted' }, 'Newest first. Nothing here is forgotten when a value is replaced.'),
        );
        const list = h('ol', { class: 'versions', id: 'versions' });
        for (const v of versions) {
          list.append(
            h(
              'li',
              { class: 'version' },
              h('p', { class: 'side-value' }, v.value),
              h('p', {}, `${v.who} on ${dayWords(v.at)}.`),
              v.source !== undefined ? h('p', { class: 'a2-caption' }, `${v.source}.`) : null,
              h(
                'p',
                { class: 'a2-caption' },
                v.replacedBy === undefined
                  ? v.value === 'Removed'
                    ? 'Removed from your profile.'
                    : 'This is what it says now.'
                  : `Replaced on ${dayWords(v.replacedBy.at)} by: ${v.replacedBy.value}.`,
              ),
            ),
          );
        }
        el.append(list);
      }
      return el;
    },
  };
}
