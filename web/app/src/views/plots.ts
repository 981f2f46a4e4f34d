import type { AuditEvent } from '../../../../src/model/audit-event.ts';
import type { Claim } from '../../../../src/model/claim.ts';
import type { AppContext, Section } from '../context.ts';
import { h } from '../dom.ts';
import { accessOverTime, confidenceMix } from '../plots/index.ts';
import '../plots/plots.css';

// The two plots of issue 12 (item 4; docs/web-app-plots.md): how sure each area is and how much
// of it the person said, and the reads of the profile per app over the last 30 days. Each is an
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

const DAYS = 30;
const reads: { events: AuditEvent[]; seq: number; error?: string; more?: boolean } = { events: [], seq: -2 };
let loading = false;

/** Reads per app per day; the events are read again when the profile's state moves on. */
export function accessSection(ctx: AppContext, names: Record<string, string>): Section {
  const seq = ctx.state()?.seq ?? -1;
  if (reads.seq !== seq && !loading && ctx.state() !== undefined) void load(ctx, seq);
  return {
    id: 'plot-access',
    key: JSON.stringify([reads, names, ctx.now().toISOString().slice(0, 10)]),
    build: () => {
      const el = h(
        'section',
        { id: 'plot-access', class: 'plot', 'aria-labelledby': 'plot-access-h' },
        h('h2', { id: 'plot-access-h' }, 'Which apps read your preferences, day by day'),
      );
      if (reads.error) el.append(h('p', { class: 'error', role: 'alert' }, reads.error));
      else if (reads.seq === -2) el.append(h('p', { class: 'muted' }, 'Loading…'));
      else
        el.append(
          fromHtml(
            accessOverTime(reads.events, { now: ctx.now(), days: DAYS, appNames: names, idPrefix: 'reads' }),
          ),
        );
      if (reads.more) el.append(h('p', { class: 'muted' }, 'Only the latest 500 events are counted here.'));
      return el;
    },
  };
}

async function load(ctx: AppContext, seq: number): Promise<void> {
  loading = true;
  try {
    const since = new Date(ctx.now().getTime() - DAYS * 86_400_000).toISOString();
    const out = (await ctx.act('list_audit_events', { since, limit: 500, order: 'newest' })) as
      | { events: AuditEvent[]; next_cursor?: string }
      | undefined;
    if (out) {
      reads.events = out.events;
      reads.more = out.next_cursor !== undefined;
      delete reads.error;
    } else reads.error = 'The picture could not be made. Try again in a moment.';
    reads.seq = seq;
  } finally {
    loading = false;
  }
  ctx.redraw();
}
