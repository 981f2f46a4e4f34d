import type { AuditEvent } from '../../../../src/model/audit-event.ts';
import type { ConsentGrant } from '../../../../src/model/consent-grant.ts';
import { appName, appNames, learnAppNames } from '../app-names.ts';
import { entryWords } from '../audit-words.ts';
import type { AppContext, Section } from '../context.ts';
import { h } from '../dom.ts';
import { lastUsed, usageKey } from '../grant-usage.ts';
import { byApp } from '../grants-by-app.ts';
import { areaTitle, dayWords, listWords, relativeWords } from '../words.ts';
import { naming } from './activity-log.ts';

// The home view's first answer, at a glance (issue 26 item 1): what waits for the person, which
// apps can use their preferences (what each sees, whether it may change anything, when it last
// did something), and what happened lately; each with the way to the view that says all of it.

/** The newest few entries of the log, read when the home view is first drawn and after each change. */
const recent: { forSeq?: number; events: AuditEvent[] } = { events: [] };
const RECENT = 5;

async function loadRecent(ctx: AppContext, seq: number): Promise<void> {
  recent.forSeq = seq;
  const out = (await ctx.act('list_audit_events', { limit: 20, order: 'newest' })) as
    | { events: AuditEvent[] }
    | undefined;
  if (out === undefined) return;
  recent.events = out.events.slice(0, RECENT);
  await learnAppNames(recent.events.flatMap((e) => (e.actor.kind === 'grantee' ? [e.actor.id] : [])));
  ctx.redraw();
}

export function glanceSection(ctx: AppContext): Section {
  const state = ctx.state();
  if (state !== undefined && recent.forSeq !== state.seq) void loadRecent(ctx, state.seq);
  const now = ctx.now();
  const waitingRequests = ctx
    .requests()
    .filter((r) => r.expiresAt === undefined || Date.parse(r.expiresAt) > now.getTime()).length;
  const waitingReviews = state?.pending_reviews.length ?? 0;
  const grants = state?.active_grants ?? [];
  for (const g of grants) lastUsed(ctx, g.grant_id);
  return {
    id: 'glance',
    key: JSON.stringify([
      waitingRequests,
      waitingReviews,
      grants,
      appNames(),
      usageKey(),
      recent.events,
      dayWords(now.toISOString()),
    ]),
    build: () =>
      h(
        'section',
        { id: 'glance', 'aria-labelledby': 'glance-h', class: 'glance' },
        h('h2', { id: 'glance-h', tabindex: '-1' }, 'At a glance'),
        h(
          'div',
          { class: 'glance-grid' },
          waitingPanel(waitingRequests, waitingReviews),
          appsPanel(ctx, grants, now),
          latelyPanel(now, grants),
        ),
      ),
  };
}

function panel(id: string, title: string, ...body: (Node | string)[]): HTMLElement {
  return h(
    'div',
    { class: 'glance-panel', role: 'group', 'aria-labelledby': id },
    h('h3', { id }, title),
    ...body,
  );
}

function waitingPanel(requests: number, reviews: number): HTMLElement {
  if (requests + reviews === 0)
    return panel('glance-waiting', 'Waiting for you', h('p', {}, 'Nothing. You are up to date.'));
  const lines: HTMLElement[] = [];
  if (requests > 0) {
    lines.push(
      h(
        'li',
        {},
        h('a', { href: '#requests' }, count(requests, 'app is asking', 'apps are asking'), ' for access'),
      ),
    );
  }
  if (reviews > 0) {
    lines.push(
      h(
        'li',
        {},
        h(
          'a',
          { href: '#suggestions' },
          count(reviews, 'suggestion waits', 'suggestions wait'),
          ' for your answer',
        ),
      ),
    );
  }
  return panel('glance-waiting', 'Waiting for you', h('ul', { class: 'plain-list' }, ...lines));
}

function appsPanel(ctx: AppContext, grants: readonly ConsentGrant[], now: Date): HTMLElement {
  const apps = byApp(grants);
  if (apps.size === 0) {
    return panel('glance-apps', 'Apps with access', h('p', {}, 'No app can use your preferences.'));
  }
  const items = [...apps].map(([clientId, own]) => {
    const sees = listWords(
      [...new Set(own.flatMap((g) => g.allowed_namespaces))].map((n) => areaTitle(n).toLowerCase()),
    );
    const changes = own.some((g) => g.allowed_operations.includes('propose_update'))
      ? 'may suggest changes'
      : 'cannot change anything';
    const uses = own.map((g) => lastUsed(ctx, g.grant_id));
    const used = uses
      .filter((u): u is string => typeof u === 'string')
      .sort()
      .at(-1);
    const usedWords =
      used !== undefined
        ? `last used ${relativeWords(used, now)}`
        : uses.every((u) => u === null)
          ? 'not used yet'
          : '';
    return h(
      'li',
      {},
      h('strong', {}, appName(clientId)),
      `: sees your ${sees}; ${changes}${usedWords ? `; ${usedWords}` : ''}.`,
    );
  });
  return panel(
    'glance-apps',
    'Apps with access',
    h('ul', { class: 'plain-list' }, ...items),
    h(
      'p',
      {},
      h('a', { href: '/app/access', 'data-view': '/app/access' }, 'See or change what each app can do'),
    ),
  );
}

function latelyPanel(now: Date, grants: readonly ConsentGrant[]): HTMLElement {
  // The app of the person's own entries (issue 26 item 3): by its grant, among those shown now.
  const named = {
    appOfClient: naming.appOfClient,
    appOfGrant: (id: string) => {
      const grant = grants.find((g) => g.grant_id === id);
      return grant !== undefined ? appName(grant.grantee_id) : naming.appOfGrant(id);
    },
  };
  if (recent.events.length === 0)
    return panel('glance-lately', 'Lately', h('p', {}, 'Nothing has happened yet.'));
  return panel(
    'glance-lately',
    'Lately',
    h(
      'ul',
      { class: 'plain-list' },
      ...recent.events.map((e) =>
        h('li', {}, `${entryWords(e, named).slice(0, -1)} (${relativeWords(e.at, now)}).`),
      ),
    ),
    h('p', {}, h('a', { href: '/app/activity', 'data-view': '/app/activity' }, 'Everything that happened')),
  );
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
