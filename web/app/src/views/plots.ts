import type { Claim } from '../../../../src/model/claim.ts';
import type { Section } from '../context.ts';
import { h } from '../dom.ts';
import { confidenceMix } from '../plots/index.ts';
import '../plots/plots.css';

// The plot of issue 12 (item 4; docs/web-app-plots.md) the overview shows: how sure each area is
// and how much of it the person said (the reads per app are the activity view's, activity-plot.ts). It is an
// HTML string made by web/app/src/plots (escaped there: a figure with an SVG and a table), parsed
// here into the page.

function fromHtml(markup: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = markup;
  return template.content;
}

export function mixSection(claims: readonly Claim[]): Section {
  return {
    id: 'plot-mix',
    key: JSON.stringify(claims.map((c) => [c.namespace, c.source.kind, c.confidence])),
    build: () =>
      h(
        'section',
        { id: 'plot-mix', class: 'plot', 'aria-labelledby': 'plot-mix-h' },
        h('h2', { id: 'plot-mix-h' }, 'How sure, and how much you said yourself'),
        claims.length === 0
          ? h('p', { class: 'muted' }, 'Nothing to show yet.')
          : fromHtml(confidenceMix(claims, { idPrefix: 'mix' })),
      ),
  };
}
