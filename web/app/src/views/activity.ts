import type { AuditEvent } from '../../../../src/model/audit-event.ts';
import { appName, appNames, learnAppNames } from '../app-names.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { AUDIT_WORDS, actorWords, keysWords, timeWords } from '../words.ts';
import { accessSection } from './plots.ts';

// Who read what, and when (list_audit_events), newest first, with filters: which app, what kind
// of thing, from and until a day; a page at a time ("Show more").

export const activityView: View = {
  path: '/app/activity',
  title: 'Who looked, and when',
  label: 'Activity',
  sections: (ctx) => [accessSection(ctx, appNames()), filtersSection(ctx), logSection(ctx)],
};

interface Filters {
  grantee: string;
  action: string;
  since: string;
  until: string;
}

const filters: Filters = { grantee: '', action: '', since: '', until: '' };
const list: { events: AuditEvent[]; next?: string; loaded: string; error?: string } = {
  events: [],
  loaded: '',
};
let loading = false;

const PAGE = 50;

function query(cursor?: string): Record<string, unknown> {
  const q: Record<string, unknown> = { limit: PAGE, order: 'newest' };
  if (filters.grantee !== '') q['grantee'] = filters.grantee;
  if (filters.action !== '') q['action'] = filters.action;
  if (filters.since !== '') q['since'] = new Date(`${filters.since}T00:00:00`).toISOString();
  if (filters.until !== '') q['until'] = new Date(`${filters.until}T23:59:59.999`).toISOString();
  if (cursor !== undefined) q['cursor'] = cursor;
  return q;
}

async function load(ctx: AppContext, more: boolean): Promise<void> {
  if (loading) return;
  loading = true;
  const key = JSON.stringify(filters);
  try {
    const out = (await ctx.act('list_audit_events', query(more ? list.next : undefined))) as
      | { events: AuditEvent[]; next_cursor?: string }
      | undefined;
    if (!out) {
      list.error = 'The list could not be shown. Try again in a moment.';
    } else {
      list.events = more ? [...list.events, ...out.events] : out.events;
      if (out.next_cursor !== undefined) list.next = out.next_cursor;
      else delete list.next;
      delete list.error;
      await learnAppNames(out.events.flatMap((e) => (e.actor.kind === 'grantee' ? [e.actor.id] : [])));
    }
    list.loaded = key;
  } finally {
    loading = false;
  }
  ctx.redraw();
}

function filtersSection(ctx: AppContext): Section {
  const apps = [
    ...new Set([
      ...(ctx.state()?.active_grants ?? []).map((g) => g.grantee_id),
      ...list.events.flatMap((e) => (e.actor.kind === 'grantee' ? [e.actor.id] : [])),
    ]),
  ].sort();
  if (list.loaded !== JSON.stringify(filters) && ctx.state() !== undefined) void load(ctx, false);
  return {
    id: 'filters',
    key: JSON.stringify([apps, appNames(), filters]),
    build: () => {
      const app = h('select', { id: 'f-app' }, h('option', { value: '' }, 'Every app'));
      for (const id of apps) {
        const o = h('option', { value: id }, appName(id));
        o.selected = id === filters.grantee;
        app.append(o);
      }
      const what = h('select', { id: 'f-what' }, h('option', { value: '' }, 'Everything'));
      for (const [action, words] of Object.entries(AUDIT_WORDS)) {
        const o = h('option', { value: action }, capital(words));
        o.selected = action === filters.action;
        what.append(o);
      }
      const since = h('input', { type: 'date', id: 'f-since', value: filters.since });
      const until = h('input', { type: 'date', id: 'f-until', value: filters.until });
      const form = h(
        'form',
        { class: 'filters', id: 'filters' },
        h('h2', { id: 'activity-h', tabindex: '-1' }, 'Who looked at your preferences, and when'),
        h('div', { class: 'field' }, h('label', { for: 'f-app' }, 'App'), app),
        h('div', { class: 'field' }, h('label', { for: 'f-what' }, 'What happened'), what),
        h('div', { class: 'field' }, h('label', { for: 'f-since' }, 'From'), since),
        h('div', { class: 'field' }, h('label', { for: 'f-until' }, 'Until'), until),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', class: 'primary', id: 'f-apply' }, 'Show'),
        ),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        Object.assign(filters, {
          grantee: app.value,
          action: what.value,
          since: since.value,
          until: until.value,
        });
        void load(ctx, false);
      });
      return h('section', { id: 'filters-section', 'aria-labelledby': 'activity-h' }, form);
    },
  };
}

function logSection(ctx: AppContext): Section {
  return {
    id: 'log',
    key: JSON.stringify([list, appNames()]),
    build: () => {
      const el = h(
        'section',
        { id: 'log', 'aria-labelledby': 'log-h' },
        h('h2', { id: 'log-h' }, 'What happened'),
      );
      if (list.error) el.append(h('p', { class: 'error', role: 'alert' }, list.error));
      if (list.events.length === 0) {
        el.append(
          h('p', { class: 'muted' }, list.loaded === '' ? 'Loading…' : 'Nothing matches these choices.'),
        );
        return el;
      }
      const items = h('ol', { class: 'log' });
      for (const e of list.events) {
        const keys = keysWords(e.claim_keys);
        items.append(
          h(
            'li',
            { class: e.outcome === 'denied' ? 'denied' : undefined },
            h('time', { datetime: e.at }, timeWords(e.at)),
            h(
              'span',
              { class: 'what' },
              `${actorWords(e.actor)} ${AUDIT_WORDS[e.action] ?? 'did something'}${e.outcome === 'denied' && e.action !== 'denied' ? ', and was refused' : ''}.`,
            ),
            keys !== '' ? h('span', { class: 'keys' }, `Preferences: ${keys}.`) : null,
          ),
        );
      }
      el.append(items);
      if (list.next !== undefined) {
        const more = h('button', { type: 'button', id: 'log-more' }, 'Show more');
        more.addEventListener('click', () => void load(ctx, true));
        el.append(h('div', { class: 'actions' }, more));
      }
      return el;
    },
  };
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
