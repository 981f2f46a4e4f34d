import type { AuditEvent } from '../../../../src/model/audit-event.ts';
import { appName, appNames, learnAppNames } from '../app-names.ts';
import type { AppContext, Section } from '../context.ts';
import { h } from '../dom.ts';
import { accessOverTime } from '../plots/index.ts';
import '../plots/plots.css';

// Reads of the profile per app per day over the last 30 days (issue 12 item 4, issue 26 item 3),
// with a choice of app: the figure (small multiples, docs/web-app-plots.md) and the same numbers
// as a table. Read again when the log grows or the profile's state moves on.

const DAYS = 30;
const LIMIT = 500;

const reads: { events: AuditEvent[]; key: string; error?: string; more?: boolean } = { events: [], key: '' };
let app = '';
let loading = false;

function fromHtml(markup: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = markup;
  return template.content;
}

/** `version`: what the events must be at least as new as (the state's seq, the log's notices). */
export function readsSection(ctx: AppContext, version: string): Section {
  const want = JSON.stringify([version, app]);
  if (reads.key !== want && !loading && ctx.state() !== undefined) void load(ctx, want);
  const apps = [
    ...new Set([
      ...(ctx.state()?.active_grants ?? []).map((g) => g.grantee_id),
      ...reads.events.flatMap((e) => (e.actor.kind === 'grantee' ? [e.actor.id] : [])),
      ...(app !== '' ? [app] : []),
    ]),
  ].sort();
  return {
    id: 'plot-access',
    key: JSON.stringify([reads, app, apps, appNames(), ctx.now().toISOString().slice(0, 10)]),
    build: () => {
      const select = h('select', { id: 'plot-app' }, h('option', { value: '' }, 'Every app'));
      for (const id of apps) {
        const o = h('option', { value: id }, appName(id));
        o.selected = id === app;
        select.append(o);
      }
      select.addEventListener('change', () => {
        app = select.value;
        ctx.redraw();
      });
      const el = h(
        'section',
        { id: 'plot-access', class: 'plot', 'aria-labelledby': 'plot-access-h' },
        h('h2', { id: 'plot-access-h' }, 'Which apps read your preferences, day by day'),
        h('div', { class: 'field' }, h('label', { for: 'plot-app' }, 'Show reads by'), select),
      );
      if (reads.error) el.append(h('p', { class: 'error', role: 'alert' }, reads.error));
      else if (reads.key === '') el.append(h('p', { class: 'muted' }, 'Loading…'));
      else
        el.append(
          fromHtml(
            accessOverTime(reads.events, {
              now: ctx.now(),
              days: DAYS,
              appNames: appNames(),
              idPrefix: 'reads',
            }),
          ),
        );
      if (reads.more)
        el.append(h('p', { class: 'muted' }, `Only the latest ${LIMIT} entries are counted here.`));
      return el;
    },
  };
}

async function load(ctx: AppContext, key: string): Promise<void> {
  loading = true;
  try {
    const since = new Date(ctx.now().getTime() - DAYS * 86_400_000).toISOString();
    const args: Record<string, unknown> = { since, limit: LIMIT, order: 'newest' };
    if (app !== '') args['grantee'] = app;
    const out = (await ctx.act('list_audit_events', args)) as
      | { events: AuditEvent[]; next_cursor?: string }
      | undefined;
    if (out) {
      reads.events = out.events;
      reads.more = out.next_cursor !== undefined;
      delete reads.error;
      await learnAppNames(out.events.flatMap((e) => (e.actor.kind === 'grantee' ? [e.actor.id] : [])));
    } else reads.error = 'The picture could not be made. Try again in a moment.';
    reads.key = key;
  } finally {
    loading = false;
  }
  ctx.redraw();
}
