import type { AuditEvent } from '../../../../src/model/audit-event.ts';
import { appName, appNames } from '../app-names.ts';
import { AUDIT_GROUPS, type AuditGroup, entryWords } from '../audit-words.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { keysWords, timeWords } from '../words.ts';
import { type LogFilters, loadNewer, loadPage, naming } from './activity-log.ts';
import { readsSection } from './activity-plot.ts';

// Who read what, and when (list_audit_events), newest first, in the person's words (issue 26,
// item 3; docs/web-app.md, "The activity log"): each entry names its app and, refused, says why;
// filters by app, by a handful of groups and by days; a page at a time ("Show more"). Live: the
// review stream says when the log grew (and every change moves its state on); the newest entries
// are then read again, and the new ones added at the top and said politely to screen readers.

export const activityView: View = {
  path: '/app/activity',
  title: 'Who looked, and when',
  label: 'Activity',
  sections: (ctx) => [filtersSection(ctx), liveSection(), logSection(ctx), readsSection(ctx, version(ctx))],
};

/** How many times the review stream said the log grew (app.ts calls this). */
let appended = 0;
export function noteAuditAppended(): void {
  appended += 1;
}

function version(ctx: AppContext): string {
  return `${ctx.state()?.seq ?? -1}/${appended}`;
}

const filters: LogFilters = { grantee: '', group: '', since: '', until: '' };
const list: { events: AuditEvent[]; more: boolean; loaded: string; version: string; error?: string } = {
  events: [],
  more: false,
  loaded: '',
  version: '',
};
let loading = false;

/** The polite live region: made once, kept in its own section, so that its words are announced. */
const live = h('p', { id: 'log-live', class: 'visually-hidden', 'aria-live': 'polite' });

function liveSection(): Section {
  return { id: 'log-live', key: 'live', build: () => live };
}

async function load(ctx: AppContext, how: 'first' | 'more' | 'newer'): Promise<void> {
  if (loading) return;
  loading = true;
  const key = JSON.stringify(filters);
  const at = version(ctx);
  try {
    if (how === 'newer') {
      const fresh = await loadNewer(ctx.csrf, filters, list.events);
      if (fresh.length > 0) {
        list.events = [...fresh, ...list.events];
        live.textContent =
          fresh.length === 1
            ? `New entry: ${entryWords(fresh[0] as AuditEvent, naming)}`
            : `${fresh.length} new entries, the newest: ${entryWords(fresh[0] as AuditEvent, naming)}`;
      }
    } else {
      const page = await loadPage(ctx.csrf, filters, how === 'more' ? list.events : undefined);
      list.events = how === 'more' ? [...list.events, ...page.events] : page.events;
      list.more = page.more;
    }
    delete list.error;
    list.loaded = key;
    list.version = at;
  } catch {
    list.error = 'The list could not be shown. Try again in a moment.';
    list.loaded = key;
    list.version = at;
  } finally {
    loading = false;
  }
  ctx.redraw();
}

function filtersSection(ctx: AppContext): Section {
  if (ctx.state() !== undefined && !loading) {
    if (list.loaded !== JSON.stringify(filters)) void load(ctx, 'first');
    else if (list.version !== version(ctx)) void load(ctx, list.error ? 'first' : 'newer');
  }
  const apps = [
    ...new Set([
      ...(ctx.state()?.active_grants ?? []).map((g) => g.grantee_id),
      ...list.events.flatMap((e) => (e.actor.kind === 'grantee' ? [e.actor.id] : [])),
      ...(filters.grantee !== '' ? [filters.grantee] : []),
    ]),
  ].sort();
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
      for (const [group, words] of Object.entries(AUDIT_GROUPS)) {
        const o = h('option', { value: group }, words);
        o.selected = group === filters.group;
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
          group: what.value as AuditGroup | '',
          since: since.value,
          until: until.value,
        });
        void load(ctx, 'first');
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
            { class: e.outcome === 'denied' ? 'denied' : undefined, 'data-event': e.event_id },
            h('time', { datetime: e.at }, timeWords(e.at)),
            h('span', { class: 'what' }, entryWords(e, naming)),
            keys !== '' ? h('span', { class: 'keys' }, `Preferences: ${keys}.`) : null,
          ),
        );
      }
      el.append(items);
      if (list.more) {
        const more = h('button', { type: 'button', id: 'log-more' }, 'Show more');
        more.addEventListener('click', () => void load(ctx, 'more'));
        el.append(h('div', { class: 'actions' }, more));
      }
      return el;
    },
  };
}
