import type { Claim } from '../../../src/model/claim.ts';
import type { ClaimHistoryEntry } from '../../../src/model/claim-history.ts';
import { confidenceWords, sourceWords } from '../../../src/surfaces/shared/a2ui/words.ts';
import { keyWords, valueWords } from '../../../src/surfaces/shared/describe.ts';
import { ActionError, runActions } from './actions.ts';
import { appName } from './app-names.ts';
import { lastWritten } from './claim-versions.ts';
import { type Conflict, keepBothActions, pickActions, type Side, sideValue } from './conflicts.ts';
import type { AppContext } from './context.ts';
import { h } from './dom.ts';
import { dayWords } from './words.ts';

// One conflict drawn side by side (docs/web-app.md, "Conflicts"): who said what and when, each
// with "Use this one"; "Keep both" where the value can hold both (a list). A suggestion against
// what the person said reads "now → suggested". Picking keeps the rest in the history.

const VERB: Record<Claim['source']['kind'], string> = {
  user_stated: 'said',
  observed: 'worked out from what you did',
  inferred: 'guessed',
  imported: 'brought over',
  derived_aggregate: 'estimated from people like you',
};

/** "You said", "Fragrance Finder guessed", "An import brought over". */
function saidBy(side: Side, entry: ClaimHistoryEntry | undefined): string {
  if (side.kind === 'proposal') return `${appName(side.proposal.client_id)} suggested`;
  const kind = side.claim.source.kind;
  if (kind === 'user_stated') return 'You said';
  if (entry?.actor.kind === 'grantee') return `${appName(entry.actor.id)} ${VERB[kind]}`;
  if (entry?.change === 'imported' || kind === 'imported') return `An import ${VERB[kind]}`;
  return sourceWords(kind);
}

export function conflictPanel(
  ctx: AppContext,
  conflict: Conflict,
  history: readonly ClaimHistoryEntry[] | undefined,
): HTMLElement {
  const slug = conflict.key.replace(/[^A-Za-z0-9_-]/g, '-');
  const name = keyWords(conflict.key).name;
  const words = (v: unknown, c: Claim) => valueWords(v, conflict.key, c.units);
  const el = h(
    'div',
    { class: 'conflict', id: `conflict-${slug}`, role: 'group', 'aria-labelledby': `conflict-${slug}-h` },
    h('h3', { id: `conflict-${slug}-h` }, `${name}: your sources disagree`),
  );
  const sides = h('ul', { class: 'sides' });
  const busy: HTMLButtonElement[] = [];
  const run = async (actions: ReturnType<typeof pickActions>, done: string) => {
    for (const b of busy) b.disabled = true;
    try {
      await runActions(ctx.csrf, actions);
      ctx.notify(done);
    } catch (e) {
      ctx.notify(e instanceof ActionError ? e.message : 'Something went wrong. Try again.', 'error');
      for (const b of busy) b.disabled = false;
    }
  };
  conflict.sides.forEach((side, i) => {
    const claim = side.kind === 'claim' ? side.claim : side.proposal.claim;
    const entry = side.kind === 'claim' && history ? lastWritten(history, side.id) : undefined;
    const when = side.kind === 'proposal' ? side.proposal.created_at : entry?.at;
    const value = words(sideValue(side), claim);
    const head = `${saidBy(side, entry)}${when !== undefined ? ` on ${dayWords(when)}` : ''}`;
    const use = h('button', { type: 'button', id: `conflict-${slug}-pick-${i}` }, 'Use this one');
    use.setAttribute('aria-label', `Use this one: ${value}`);
    busy.push(use);
    use.addEventListener(
      'click',
      () =>
        void run(
          pickActions(conflict, side.id),
          `${name} now says ${value}. What it replaced is kept in its history.`,
        ),
    );
    const nowToSuggested =
      side.kind === 'proposal' && conflict.stated !== undefined
        ? h(
            'p',
            { class: 'now-suggested' },
            `Now: ${words(conflict.stated.value, conflict.stated)} → suggested: ${value}`,
          )
        : null;
    sides.append(
      h(
        'li',
        { class: 'side' },
        h('p', { class: 'said-by' }, `${head}:`),
        h('p', { class: 'side-value' }, value),
        nowToSuggested,
        h(
          'p',
          { class: 'a2-caption' },
          `${sourceWords(claim.source.kind)}, ${confidenceWords(claim.confidence)}.`,
        ),
        h('div', { class: 'actions' }, use),
      ),
    );
  });
  el.append(sides);
  if (conflict.canKeepBoth) {
    const both = h('button', { type: 'button', id: `conflict-${slug}-both` }, 'Keep both');
    busy.push(both);
    both.addEventListener(
      'click',
      () =>
        void run(
          keepBothActions(conflict),
          `${name} now has every name from both. What it replaced is kept in its history.`,
        ),
    );
    el.append(
      h('p', { class: 'muted' }, 'A list can hold both: keep every name either side says.'),
      h('div', { class: 'actions' }, both),
    );
  }
  return el;
}
