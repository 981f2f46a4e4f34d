import type { AuditEvent } from '../../../../src/model/audit-event.ts';
import { runActions } from '../actions.ts';
import { appName, learnAppNames } from '../app-names.ts';
import { type AppNaming, type AuditGroup, actionsOf } from '../audit-words.ts';

// The log's entries as the activity view shows them (issue 26, item 3): newest first, a page at a
// time, filtered by app, group and days. A group is several audit actions and the listing takes
// one, so a group's page is one run asking each of its actions for a page, merged newest first;
// the next page asks again for what is older than the oldest entry shown. New entries are found
// by asking for the first page again and keeping what is newer than the newest shown.

export interface LogFilters {
  grantee: string;
  group: AuditGroup | '';
  /** Days as the date inputs give them (YYYY-MM-DD), or ''. */
  since: string;
  until: string;
}

const PAGE = 50;

/** The grant of each grant id the page has seen, for naming the app of the person's own entries. */
const grantApps = new Map<string, string>();

export const naming: AppNaming = {
  appOfClient: (clientId) => appName(clientId),
  appOfGrant: (grantId) => {
    const client = grantApps.get(grantId);
    return client === undefined ? undefined : appName(client);
  },
};

type Page = { events: AuditEvent[]; next_cursor?: string };

function dayStart(day: string): number {
  return new Date(`${day}T00:00:00`).getTime();
}

function queries(filters: LogFilters, before?: number): Record<string, unknown>[] {
  const base: Record<string, unknown> = { limit: PAGE, order: 'newest' };
  if (filters.grantee !== '') base['grantee'] = filters.grantee;
  if (filters.since !== '') base['since'] = new Date(dayStart(filters.since)).toISOString();
  const untils = [
    ...(filters.until !== '' ? [dayStart(filters.until) + 86_400_000] : []),
    ...(before !== undefined ? [before] : []),
  ];
  if (untils.length > 0) base['until'] = new Date(Math.min(...untils)).toISOString();
  if (filters.group === '') return [base];
  return actionsOf(filters.group).map((action) => ({ ...base, action }));
}

/** Newest first; time-ordered event ids break ties of one millisecond. */
function newestFirst(a: AuditEvent, b: AuditEvent): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  return a.event_id < b.event_id ? 1 : a.event_id > b.event_id ? -1 : 0;
}

export interface Loaded {
  readonly events: AuditEvent[];
  readonly more: boolean;
}

/**
 * A page of entries: the newest (no `after`), or those older than `after`'s oldest (the listing's
 * `until` is exclusive, so the oldest's millisecond is asked again and what was shown is left out).
 */
export async function loadPage(
  csrf: string,
  filters: LogFilters,
  after?: readonly AuditEvent[],
): Promise<Loaded> {
  const oldest = after?.at(-1);
  const before = oldest === undefined ? undefined : Date.parse(oldest.at) + 1;
  const asks = queries(filters, before).map((args) => ({ name: 'list_audit_events', arguments: args }));
  const pages = (await runActions(csrf, asks)) as Page[];
  const shown = new Set((after ?? []).map((e) => e.event_id));
  const merged = pages
    .flatMap((p) => p.events)
    .filter((e) => !shown.has(e.event_id))
    .sort(newestFirst);
  const more = merged.length > PAGE || pages.some((p) => p.next_cursor !== undefined);
  const events = merged.slice(0, PAGE);
  await learnNames(csrf, events);
  return { events, more };
}

/** The entries newer than the newest of `shown` (asked as a fresh first page). */
export async function loadNewer(
  csrf: string,
  filters: LogFilters,
  shown: readonly AuditEvent[],
): Promise<AuditEvent[]> {
  const { events } = await loadPage(csrf, filters);
  const newest = shown[0];
  const known = new Set(shown.map((e) => e.event_id));
  return events.filter((e) => !known.has(e.event_id) && (newest === undefined || newestFirst(e, newest) < 0));
}

/** The apps of the entries: their grantee ids, and the grants the person's own entries name. */
async function learnNames(csrf: string, events: readonly AuditEvent[]): Promise<void> {
  const unknown = events.some((e) => e.grant_id !== undefined && !grantApps.has(e.grant_id));
  if (unknown) {
    const [out] = (await runActions(csrf, [{ name: 'list_consent_grants', arguments: {} }])) as [
      { grants: { grant_id: string; grantee_id: string }[] },
    ];
    for (const g of out.grants) grantApps.set(g.grant_id, g.grantee_id);
  }
  await learnAppNames([
    ...events.flatMap((e) => (e.actor.kind === 'grantee' ? [e.actor.id] : [])),
    ...events.flatMap((e) => {
      const client = e.grant_id !== undefined ? grantApps.get(e.grant_id) : undefined;
      return client !== undefined ? [client] : [];
    }),
    ...events.flatMap((e) => / of (\S+) rejected$/.exec(e.detail ?? '')?.slice(1) ?? []),
  ]);
}
