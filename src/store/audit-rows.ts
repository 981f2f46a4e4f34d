import { createHash } from 'node:crypto';
import type { AuditEvent } from '../model/audit-event.ts';
import { type Clause, clampLimit, decodeCursor, encodeCursor, instant, integer, type Row } from './rows.ts';
import type { AuditFilter, AuditPage } from './store.ts';

// The audit log's rows (events as columns, claim-key lists stored once: SQLite migration 0011,
// PostgreSQL 0001) and the plan of a listing, which both drivers walk the same way: one subject's
// events in `seq` order from the cursor, either way, keyed by the most selective equality filter,
// `since` and `until` turned into `seq` bounds by a binary search over the log's clock `ts`, and at
// most AUDIT_MAX_EXAMINED rows examined beyond the page. Each driver keeps its SQL and its lookups.

/**
 * The most rows of the log one listing may read beyond its page when a filter is not covered by
 * the index it walks (a second equality filter, or the few events whose time runs behind the log's
 * clock). A page that reaches it ends early with a cursor to go on from: no listing, however rare
 * what it looks for, holds the event loop for longer than reading this many index entries.
 */
export const AUDIT_MAX_EXAMINED = 2000;

/** The equality filters, in the order one is chosen to key the walk (the most selective first). */
const AUDIT_EQUALITIES = [
  { field: 'grant_id', column: 'grant_id' },
  { field: 'actor_id', column: 'actor_id' },
  { field: 'action', column: 'action' },
] as const;

export type AuditEquality = (typeof AUDIT_EQUALITIES)[number];

/**
 * The columns eventFromRow reads from `e`, the event. Its key list is looked up once per page and
 * list (`keySetsOf`, then the driver's query of `audit_key_sets`), not joined to every row: a page
 * of 50 reads of one 200-key scope would carry the same ~6 KB of text 50 times.
 */
export const AUDIT_EVENT_COLUMNS =
  'e.seq, e.event_id, e.subject_id, e.grant_id, e.actor_kind, e.actor_id, e.action, e.outcome, e.detail, e.key_set, e.at';

/** The distinct key lists the events of a page name (of `rows`, up to the walk's limit). */
export function keySetsOf(walk: AuditWalk, rows: readonly Row[]): number[] {
  const ids = new Set<number>();
  for (const row of rows.slice(0, walk.limit)) {
    const keySet = row['key_set'];
    if (typeof keySet === 'number') ids.add(keySet);
  }
  return [...ids];
}

const NO_KEYS: readonly string[] = Object.freeze([]);

/**
 * An event row. `keyLists` holds the page's lists, parsed once and frozen: the events that name
 * one list share one array (a page of 50 reads of one 200-key scope holds one list, and a surface
 * serializes it once).
 */
function eventFromRow(row: Row, keyLists: ReadonlyMap<number, readonly string[]>): AuditEvent {
  const keySet = row['key_set'];
  const keys = (typeof keySet === 'number' ? keyLists.get(keySet) : undefined) ?? NO_KEYS;
  const grantId = row['grant_id'];
  const detail = row['detail'];
  return {
    event_id: String(row['event_id']),
    at: String(row['at']),
    subject_id: String(row['subject_id']),
    actor: { kind: String(row['actor_kind']) as AuditEvent['actor']['kind'], id: String(row['actor_id']) },
    ...(typeof grantId === 'string' ? { grant_id: grantId } : {}),
    action: String(row['action']) as AuditEvent['action'],
    claim_keys: keys as string[],
    outcome: String(row['outcome']) as AuditEvent['outcome'],
    ...(typeof detail === 'string' ? { detail } : {}),
  };
}

/** A key list's JSON text, made once per list object (callers share one list between events). */
const jsonByList = new WeakMap<readonly string[], string>();
export function keyListJson(keys: readonly string[]): string {
  let json = jsonByList.get(keys);
  if (json === undefined) {
    json = JSON.stringify(keys);
    // Only a list that cannot change afterwards may be remembered by identity.
    if (Object.isFrozen(keys)) jsonByList.set(keys, json);
  }
  return json;
}

/** The digest a stored key list is found by (audit_key_sets.digest). */
export function keyListDigest(json: string): string {
  return createHash('sha256').update(json).digest('base64url');
}

/**
 * One listing's walk: its direction, page size, exclusive `seq` bounds, the clauses the walked
 * index covers (`keyed`) and those it does not (`secondary`). Built by `auditWalk`; `reachedBy`
 * narrows it to AUDIT_MAX_EXAMINED rows; `auditPageOf` makes the page of the rows read.
 */
export interface AuditWalk {
  readonly newest: boolean;
  /** `ASC` or `DESC`, for ORDER BY. */
  readonly direction: 'ASC' | 'DESC';
  readonly limit: number;
  after: number;
  before: number;
  /** The equality filter whose index keys the walk (after the subject), if any. */
  readonly walked: AuditEquality | undefined;
  readonly keyed: readonly Clause[];
  readonly secondary: readonly Clause[];
  /** Set by reachedBy when the walk was cut at AUDIT_MAX_EXAMINED rows. */
  windowEnd?: number;
  beyondWindow?: boolean;
}

/**
 * The walk of `filter`, given what the driver looked up by binary search over the log's clock:
 * `first`, the first seq whose ts is at least `since` (when `since` is given; undefined means no
 * event is that recent, and the caller answers an empty page without calling this), and `end`, the
 * first seq whose ts is at least `until + max_lag` (undefined: none).
 */
export function auditWalk(
  filter: AuditFilter,
  first: number | undefined,
  end: number | undefined,
): AuditWalk {
  const newest = filter.order === 'newest';
  let after = 0;
  let before = Number.MAX_SAFE_INTEGER;
  const secondary: Clause[] = [];
  if (filter.since !== undefined && first !== undefined) {
    // Every event at or after `since` has ts >= since (ts is never behind at_ms).
    after = first - 1;
    secondary.push(['e.at_ms >= ?', instant(filter.since)]);
  }
  if (filter.until !== undefined) {
    // An event's at_ms is at least ts - max_lag, so none from `end` on is before `until`.
    if (end !== undefined) before = end;
    secondary.push(['e.at_ms < ?', instant(filter.until)]);
  }
  if (filter.cursor !== undefined) {
    const seq = decodeCursor(newest ? 'audit-newest' : 'audit', filter.cursor);
    if (newest) before = Math.min(before, seq);
    else after = Math.max(after, seq);
  }
  const [walked, ...others] = AUDIT_EQUALITIES.filter((e) => filter[e.field] !== undefined);
  for (const e of others) secondary.push([`e.${e.column} = ?`, filter[e.field]]);
  const keyed: Clause[] = [['e.subject_id = ?', filter.subject_id]];
  if (walked !== undefined) keyed.push([`e.${walked.column} = ?`, filter[walked.field]]);
  return {
    newest,
    direction: newest ? 'DESC' : 'ASC',
    limit: clampLimit(filter.limit),
    after,
    before,
    walked,
    keyed,
    secondary,
  };
}

/** The keyed clauses within the walk's bounds: what the reach query walks. */
export function walkRange(walk: AuditWalk): Clause[] {
  return [...walk.keyed, ['e.seq > ?', walk.after], ['e.seq < ?', walk.before]];
}

/** Every clause of the page's query. */
export function walkClauses(walk: AuditWalk): Clause[] {
  return [...walkRange(walk), ...walk.secondary];
}

/**
 * With filters the index does not cover, the driver first reads the seqs at offsets
 * AUDIT_MAX_EXAMINED - 1 and AUDIT_MAX_EXAMINED of walkRange (`LIMIT 2 OFFSET …`): the walk then
 * stops at the first of them.
 */
export function reachedBy(walk: AuditWalk, reach: readonly Row[]): void {
  const first = reach[0];
  if (first === undefined) return;
  walk.windowEnd = integer(first, 'seq');
  walk.beyondWindow = reach.length > 1;
  if (walk.newest) walk.after = walk.windowEnd - 1;
  else walk.before = walk.windowEnd + 1;
}

/**
 * The page of `rows` (up to limit + 1 rows of walkClauses, in the walk's order), with the key
 * lists they name (`keyLists`: `set_id` and `keys` rows of audit_key_sets, for keySetsOf's ids).
 */
export function auditPageOf(walk: AuditWalk, rows: readonly Row[], keyListRows: readonly Row[]): AuditPage {
  const kind = walk.newest ? 'audit-newest' : 'audit';
  const keyLists = new Map<number, readonly string[]>();
  for (const row of keyListRows) {
    keyLists.set(integer(row, 'set_id'), Object.freeze(JSON.parse(String(row['keys'])) as string[]));
  }
  const events = rows.slice(0, walk.limit).map((row) => eventFromRow(row, keyLists));
  const last = rows[walk.limit - 1];
  if (rows.length > walk.limit && last !== undefined) {
    return { events, next_cursor: encodeCursor(kind, integer(last, 'seq')) };
  }
  // The page is short because the walk stopped at its bound; more of the log lies beyond it.
  if (walk.windowEnd !== undefined && walk.beyondWindow) {
    return { events, next_cursor: encodeCursor(kind, walk.windowEnd) };
  }
  return { events };
}
