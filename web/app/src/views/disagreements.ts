import { appNames } from '../app-names.ts';
import { conflictPanel } from '../conflict-panel.ts';
import { findConflicts } from '../conflicts.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { claimHistory } from '../history-store.ts';

// Every preference whose sources disagree (docs/web-app.md, "Conflicts"), side by side.

export const disagreementsView: View = {
  path: '/app/data/conflicts',
  title: 'Disagreements',
  sections: (ctx) => [conflictsSection(ctx)],
};

function conflictsSection(ctx: AppContext): Section {
  const state = ctx.state();
  const pending = (state?.pending_reviews ?? []).filter((p) => p.kind === 'writeback_proposal');
  const conflicts = state === undefined ? undefined : findConflicts(state.claims, pending);
  const history = conflicts !== undefined && conflicts.length > 0 ? claimHistory(ctx) : undefined;
  return {
    id: 'conflicts',
    key: JSON.stringify([conflicts ?? null, history?.length ?? -1, appNames()]),
    build: () => {
      const el = h(
        'section',
        { id: 'conflicts', 'aria-labelledby': 'conflicts-h' },
        h('h2', { id: 'conflicts-h', tabindex: '-1' }, 'Where your sources disagree'),
      );
      if (conflicts === undefined) el.append(h('p', { class: 'muted' }, 'Loading…'));
      else if (conflicts.length === 0)
        el.append(
          h(
            'p',
            { class: 'muted' },
            'Nothing to settle: what you said, what apps suggested and what was brought in agree.',
          ),
        );
      else {
        el.append(
          h(
            'p',
            {},
            'You, the apps you allowed and imports said different things about these. Pick the one that is right; what you do not pick stays in the history.',
          ),
        );
        for (const c of conflicts) el.append(conflictPanel(ctx, c, history));
      }
      return el;
    },
  };
}
