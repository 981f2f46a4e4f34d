import { createHash } from 'node:crypto';
import type { SQLInputValue } from 'node:sqlite';
import type { AuditEvent } from '../../model/audit-event.ts';
import type { AuditFilter, AuditPage } from '../store.ts';
import { ConsentQueries } from './consent-queries.ts';
import {
  clampLimit,
  decodeCursor,
  encodeCursor,
  instant,
  integer,
  type Row,
  type StatementCache,
} from './rows.ts';

/**
 * The most rows of the log one listing may read beyond its page when a filter is not covered by
 * the index it walks (a second equality filter, or the few events whose time runs behind the log's
 * clock). A page that reaches it ends early with a cursor to go on from: no listing, however rare
 * what it looks for, holds the event loop for longer than reading this many index entries.
 */
export const AUDIT_MAX_EXAMINED = 2000;

/** The equality filters, in the order an index is chosen for the walk (the most selective first). */
const EQUALITIES = [
  { field: 'grant_id', column: 'grant_id', index: 'audit_by_grant' },
  { field: 'actor_id', column: 'actor_id', index: 'audit_by_actor' },
  { field: 'action', column: 'action', index: 'audit_by_action' },
] as const;

const EVENT_COLUMNS =
  'e.seq, e.event_id, e.subject_id, e.grant_id, e.actor_kind, e.actor_id, e.action, e.outcome, e.detail, e.key_set, e.at, k.keys';

type Clause = readonly [string, SQLInputValue];

/**
 * The audit log as synchronous SQL (migration 0011): events as columns, claim-key lists stored
 * once, one index per filter. A listing walks one index in `seq` order from its cursor, either
 * way; `since` and `until` become `seq` bounds by a binary search over the log's clock `ts`.
 */
export class AuditQueries extends ConsentQueries {
  readonly #sql: StatementCache;
  /**
   * The ids of key lists this connection stored or found, by their JSON text, so that a read's
   * event costs no digest and no lookup: valid while audit_clock.key_generation holds (no list was
   * pruned, by any process) and until a rollback, which may take back a list stored here
   * (`forgetKeySets`, called on every rollback).
   */
  readonly #keySetIds = new Map<string, number>();
  #keyGeneration = -1;

  constructor(sql: StatementCache) {
    super(sql);
    this.#sql = sql;
  }

  appendAudit(events: readonly AuditEvent[]): void {
    if (events.length === 0) return;
    const insert = this.#sql.get(
      `INSERT INTO audit_events (event_id, subject_id, grant_id, actor_kind, actor_id, action, outcome,
         detail, key_set, at, at_ms, ts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const last = this.#newest();
    let ts = last === undefined ? 0 : integer(last, 'ts');
    const clock = this.#clock();
    let maxLag = clock.maxLag;
    if (clock.keyGeneration !== this.#keyGeneration) {
      this.#keySetIds.clear();
      this.#keyGeneration = clock.keyGeneration;
    }
    for (const event of events) {
      const atMs = instant(event.at);
      ts = Math.max(ts, atMs);
      if (ts - atMs > maxLag) {
        maxLag = ts - atMs;
        this.#sql.get('UPDATE audit_clock SET max_lag = ? WHERE one = 1').run(maxLag);
      }
      insert.run(
        event.event_id,
        event.subject_id,
        event.grant_id ?? null,
        event.actor.kind,
        event.actor.id,
        event.action,
        event.outcome,
        event.detail ?? null,
        this.#keySet(event.claim_keys),
        event.at,
        atMs,
        ts,
      );
    }
  }

  listAudit(filter: AuditFilter): AuditPage {
    const newest = filter.order === 'newest';
    const kind = newest ? 'audit-newest' : 'audit';
    const limit = clampLimit(filter.limit);
    // Exclusive seq bounds of the walk.
    let after = 0;
    let before = Number.MAX_SAFE_INTEGER;
    const secondary: Clause[] = [];
    if (filter.since !== undefined) {
      const since = instant(filter.since);
      // Every event at or after `since` has ts >= since (ts is never behind at_ms).
      const first = this.#firstSeqWithTsAtLeast(since);
      if (first === undefined) return { events: [] };
      after = first - 1;
      secondary.push(['e.at_ms >= ?', since]);
    }
    if (filter.until !== undefined) {
      const until = instant(filter.until);
      // An event's at_ms is at least ts - max_lag, so none from here on is before `until`.
      const end = this.#firstSeqWithTsAtLeast(until + this.#maxLag());
      if (end !== undefined) before = end;
      secondary.push(['e.at_ms < ?', until]);
    }
    if (filter.cursor !== undefined) {
      const seq = decodeCursor(kind, filter.cursor);
      if (newest) before = Math.min(before, seq);
      else after = Math.max(after, seq);
    }
    const equalities = EQUALITIES.filter((e) => filter[e.field] !== undefined);
    const [walked, ...others] = equalities;
    for (const e of others) secondary.push([`e.${e.column} = ?`, filter[e.field] as string]);
    const index = walked?.index ?? 'audit_by_subject';
    const keyed: Clause[] = [['e.subject_id = ?', filter.subject_id]];
    if (walked !== undefined) keyed.push([`e.${walked.column} = ?`, filter[walked.field] as string]);
    const direction = newest ? 'DESC' : 'ASC';
    const from = `FROM audit_events e INDEXED BY ${index}`;
    const where = (clauses: readonly Clause[]) => clauses.map(([clause]) => clause).join(' AND ');
    const values = (clauses: readonly Clause[]) => clauses.map(([, value]) => value);

    // With filters the index does not cover, first find how far AUDIT_MAX_EXAMINED rows reach.
    let windowEnd: number | undefined;
    let beyondWindow = false;
    if (secondary.length > 0) {
      const range: Clause[] = [...keyed, ['e.seq > ?', after], ['e.seq < ?', before]];
      const reach = this.#sql
        .get(
          `SELECT e.seq ${from} WHERE ${where(range)} ORDER BY e.seq ${direction} LIMIT 2 OFFSET ${AUDIT_MAX_EXAMINED - 1}`,
        )
        .all(...values(range));
      if (reach[0] !== undefined) {
        windowEnd = integer(reach[0], 'seq');
        beyondWindow = reach.length > 1;
        if (newest) after = windowEnd - 1;
        else before = windowEnd + 1;
      }
    }
    const clauses: Clause[] = [...keyed, ['e.seq > ?', after], ['e.seq < ?', before], ...secondary];
    const rows = this.#sql
      .get(
        `SELECT ${EVENT_COLUMNS} ${from} LEFT JOIN audit_key_sets k ON k.set_id = e.key_set
         WHERE ${where(clauses)} ORDER BY e.seq ${direction} LIMIT ?`,
      )
      .all(...values(clauses), limit + 1);
    const keyLists = new Map<number, readonly string[]>();
    const events = rows.slice(0, limit).map((row) => eventFromRow(row, keyLists));
    const last = rows[limit - 1];
    if (rows.length > limit && last !== undefined) {
      return { events, next_cursor: encodeCursor(kind, integer(last, 'seq')) };
    }
    // The page is short because the walk stopped at its bound; more of the log lies beyond it.
    if (windowEnd !== undefined && beyondWindow) {
      return { events, next_cursor: encodeCursor(kind, windowEnd) };
    }
    return { events };
  }

  /**
   * Removes up to `limit` of the oldest events from before `before`, moving the prune horizon
   * (the only way an event may be removed: migration 0011's trigger) up to it first.
   */
  pruneAudit(before: string, limit: number): number {
    const cutoff = instant(before);
    this.#sql.get('UPDATE audit_prune_horizon SET before_ms = max(before_ms, ?) WHERE one = 1').run(cutoff);
    // Past the first event whose clock reads cutoff + max_lag, every event is from after cutoff.
    const end = this.#firstSeqWithTsAtLeast(cutoff + this.#maxLag()) ?? Number.MAX_SAFE_INTEGER;
    const result = this.#sql
      .get(
        `DELETE FROM audit_events WHERE seq IN (
           SELECT seq FROM audit_events WHERE seq < ? AND at_ms < ? ORDER BY seq LIMIT ?)`,
      )
      .run(end, cutoff, Math.max(1, Math.trunc(limit)));
    return Number(result.changes);
  }

  /** Removes the claim-key lists no event refers to any more (after pruning); reads the whole log. */
  pruneAuditKeySets(): number {
    const result = this.#sql
      .get(
        `DELETE FROM audit_key_sets WHERE set_id NOT IN (
           SELECT key_set FROM audit_events WHERE key_set IS NOT NULL)`,
      )
      .run();
    const removed = Number(result.changes);
    if (removed > 0) {
      this.#sql.get('UPDATE audit_clock SET key_generation = key_generation + 1 WHERE one = 1').run();
    }
    return removed;
  }

  /** Forgets the key lists this connection knows (a rollback may have taken some back). */
  forgetKeySets(): void {
    this.#keySetIds.clear();
  }

  /** The latest event's seq and ts (max(seq) is one seek, where ORDER BY … LIMIT 1 plans as a scan). */
  #newest(): Row | undefined {
    return this.#sql
      .get('SELECT seq, ts FROM audit_events WHERE seq = (SELECT max(seq) FROM audit_events)')
      .get();
  }

  #maxLag(): number {
    return this.#clock().maxLag;
  }

  #clock(): { maxLag: number; keyGeneration: number } {
    const row = this.#sql.get('SELECT max_lag, key_generation FROM audit_clock WHERE one = 1').get();
    return row === undefined
      ? { maxLag: 0, keyGeneration: 0 }
      : { maxLag: integer(row, 'max_lag'), keyGeneration: integer(row, 'key_generation') };
  }

  /** The id of a stored list of claim keys, storing it first when it is new; null for none. */
  #keySet(keys: readonly string[]): number | null {
    if (keys.length === 0) return null;
    const json = keyListJson(keys);
    const known = this.#keySetIds.get(json);
    if (known !== undefined) return known;
    const digest = createHash('sha256').update(json).digest('base64url');
    const found = this.#sql.get('SELECT set_id FROM audit_key_sets WHERE digest = ?').get(digest);
    const setId =
      found !== undefined
        ? integer(found, 'set_id')
        : integer(
            this.#sql
              .get('INSERT INTO audit_key_sets (digest, keys) VALUES (?, ?) RETURNING set_id')
              .get(digest, json) as Row,
            'set_id',
          );
    if (this.#keySetIds.size >= 10_000) this.#keySetIds.clear();
    this.#keySetIds.set(json, setId);
    return setId;
  }

  /**
   * The smallest seq whose ts is at least `ms`, by binary search: ts never decreases as seq grows,
   * so this reads about log2(events) rows by primary key rather than scanning.
   */
  #firstSeqWithTsAtLeast(ms: number): number | undefined {
    const firstFrom = this.#sql.get('SELECT seq, ts FROM audit_events WHERE seq >= ? ORDER BY seq LIMIT 1');
    const newest = this.#newest();
    if (newest === undefined || integer(newest, 'ts') < ms) return undefined;
    // The smallest d whose first event at or after d has ts >= ms; true for the newest seq.
    let low = 0;
    let high = integer(newest, 'seq');
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const row = firstFrom.get(mid) as Row;
      if (integer(row, 'ts') >= ms) high = mid;
      else low = integer(row, 'seq') + 1;
    }
    return integer(firstFrom.get(low) as Row, 'seq');
  }
}

function eventFromRow(row: Row, keyLists: Map<number, readonly string[]>): AuditEvent {
  const keySet = row['key_set'];
  let keys: readonly string[] = [];
  if (typeof keySet === 'number') {
    keys = keyLists.get(keySet) ?? (JSON.parse(String(row['keys'])) as string[]);
    keyLists.set(keySet, keys);
  }
  const grantId = row['grant_id'];
  const detail = row['detail'];
  return {
    event_id: String(row['event_id']),
    at: String(row['at']),
    subject_id: String(row['subject_id']),
    actor: { kind: String(row['actor_kind']) as AuditEvent['actor']['kind'], id: String(row['actor_id']) },
    ...(typeof grantId === 'string' ? { grant_id: grantId } : {}),
    action: String(row['action']) as AuditEvent['action'],
    claim_keys: [...keys],
    outcome: String(row['outcome']) as AuditEvent['outcome'],
    ...(typeof detail === 'string' ? { detail } : {}),
  };
}

/** A key list's JSON text, made once per list object (callers share one list between events). */
const jsonByList = new WeakMap<readonly string[], string>();
function keyListJson(keys: readonly string[]): string {
  let json = jsonByList.get(keys);
  if (json === undefined) {
    json = JSON.stringify(keys);
    // Only a list that cannot change afterwards may be remembered by identity.
    if (Object.isFrozen(keys)) jsonByList.set(keys, json);
  }
  return json;
}
