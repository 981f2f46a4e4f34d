import type { AuditEvent } from '../../../../src/model/audit-event.ts';
import type { Claim } from '../../../../src/model/claim.ts';
import type { Section } from '../context.ts';
import { h } from '../dom.ts';

// The two plots of issue 12 (item 4): how sure each area is and how much of it the person said,
// and access over time per app. They are written by another change in web/app/src/plots/ (pure
// functions returning escaped HTML: a <figure> with an SVG and a table alternative); until they
// are on this branch, each place shows a short note instead.
// TODO(plots): import { accessOverTime, confidenceMix } from '../plots/index.ts';

export function plotSection(kind: 'mix', claims: readonly Claim[]): Section;
export function plotSection(
  kind: 'access',
  events: readonly AuditEvent[],
  now: Date,
  names: Record<string, string>,
): Section;
export function plotSection(
  kind: 'mix' | 'access',
  items: readonly unknown[],
  _now?: Date,
  _names?: Record<string, string>,
): Section {
  const id = `plot-${kind}`;
  return {
    id,
    key: JSON.stringify([kind, items.length]),
    build: () => {
      const title =
        kind === 'mix' ? 'How sure, and how much you said yourself' : 'Which apps looked, and when';
      return h(
        'section',
        { id, class: 'plot', 'aria-labelledby': `${id}-h` },
        h('h2', { id: `${id}-h` }, title),
        h('p', { class: 'muted' }, 'A picture of this will be shown here soon.'),
      );
    },
  };
}
