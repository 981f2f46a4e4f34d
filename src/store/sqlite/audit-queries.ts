import type { SQLInputValue } from 'node:sqlite';
import {
  AUDIT_EVENT_COLUMNS,
  AUDIT_MAX_EXAMINED,
  type AuditEquality,
  auditPageOf,
  auditWalk,
  keyListDigest,
  keyListJson,
  keySetsOf,
  reachedBy,
  walkClauses,
  walkRange,
} from '../audit-rows.ts';
import type { AuditArea, Sync } from '../query-areas.ts';
import { type Clause, instant, integer, type Row, valuesOf, whereOf } from '../rows.ts';
import type { StatementCache } from './statement-cache.ts';

/** The index each equality filter's walk goes through (migration 0011); the subject's otherwise. */
const INDEX: Record<AuditEquality['column'], string> = {
  grant_id: 'audit_by_grant',
  actor_id: 'audit_by_actor',
  action: 'audit_by_action',
};

/**
 * Events an INSERT statement takes at most: one statement for many rows costs less a row than a
 * statement a row (7.5-7.9 against 9.0 µs an event for a batch of 750, docs/benchmarks.md, "The
 * small read's p99"), and a journal's move inserts hundreds at once.
 */
const ROWS_PER_INSERT = 32;
const INSERT_SQL: string[] = [];

/** `INSERT INTO audit_events … VALUES (…), …` for `rows` events, made once per count. */
function insertSql(rows: number): string {
  let text = INSERT_SQL[rows];
  if (text === undefined) {
    const row = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
    text = `INSERT INTO audit_events (event_id, subject_id, grant_id, actor_kind, actor_id, action, outcome,
       detail, key_set, at, at_ms, ts) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`;
    INSERT_SQL[rows] = text;
  }
  return text;
}

export interface AuditQueries extends Sync<AuditArea> {
  /** Forgets the key lists this connection knows (a rollback may have taken some back). */
  forgetKeySets(): void;
}

/**
 * The audit log as synchronous SQL (migration 0011): events as columns, claim-key lists stored
 * once, one index per filter, walked as audit-rows.ts plans it (INDEXED BY the walked filter's
 * index). Appends must be serialized (the store's one write connection): `ts` is computed from the
 * newest event.
 */
export function auditQueries(sql: StatementCache): AuditQueries {
  /**
   * The ids of key lists this connection stored or found, by their JSON text, so that a read's
   * event costs no digest and no lookup: valid while audit_clock.key_generation holds (no list was
   * pruned, by any process) and until a rollback, which may take back a list stored here
   * (`forgetKeySets`, called on every rollback).
   */
  const keySetIds = new Map<string, number>();
  let keyGeneration = -1;

  /** The latest event's seq and ts (max(seq) is one seek, where ORDER BY … LIMIT 1 plans as a scan). */
  const newest = (): Row | undefined =>
    sql.get('SELECT seq, ts FROM audit_events WHERE seq = (SELECT max(seq) FROM audit_events)').get();
  const clock = (): { maxLag: number; keyGeneration: number } => {
    const row = sql.get('SELECT max_lag, key_generation FROM audit_clock WHERE one = 1').get();
    return row === undefined
      ? { maxLag: 0, keyGeneration: 0 }
      : { maxLag: integer(row, 'max_lag'), keyGeneration: integer(row, 'key_generation') };
  };

  /** The id of a stored list of claim keys, storing it first when it is new; null for none. */
  const keySet = (keys: readonly string[]): number | null => {
    if (keys.length === 0) return null;
    const json = keyListJson(keys);
    const known = keySetIds.get(json);
    if (known !== undefined) return known;
    const digest = keyListDigest(json);
    const found = sql.get('SELECT set_id FROM audit_key_sets WHERE digest = ?').get(digest);
    const setId =
      found !== undefined
        ? integer(found, 'set_id')
        : integer(
            sql
              .get('INSERT INTO audit_key_sets (digest, keys) VALUES (?, ?) RETURNING set_id')
              .get(digest, json) as Row,
            'set_id',
          );
    if (keySetIds.size >= 10_000) keySetIds.clear();
    keySetIds.set(json, setId);
    return setId;
  };

  /**
   * The smallest seq whose ts is at least `ms`, by binary search: ts never decreases as seq grows,
   * so this reads about log2(events) rows by primary key rather than scanning.
   */
  const firstSeqWithTsAtLeast = (ms: number): number | undefined => {
    const firstFrom = sql.get('SELECT seq, ts FROM audit_events WHERE seq >= ? ORDER BY seq LIMIT 1');
    const last = newest();
    if (last === undefined || integer(last, 'ts') < ms) return undefined;
    // The smallest d whose first event at or after d has ts >= ms; true for the newest seq.
    let low = 0;
    let high = integer(last, 'seq');
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const row = firstFrom.get(mid) as Row;
      if (integer(row, 'ts') >= ms) high = mid;
      else low = integer(row, 'seq') + 1;
    }
    return integer(firstFrom.get(low) as Row, 'seq');
  };

  const values = (clauses: readonly Clause[]) => valuesOf(clauses) as SQLInputValue[];

  return {
    forgetKeySets() {
      keySetIds.clear();
    },

    appendAudit(events) {
      if (events.length === 0) return;
      const last = newest();
      let ts = last === undefined ? 0 : integer(last, 'ts');
      const current = clock();
      let maxLag = current.maxLag;
      if (current.keyGeneration !== keyGeneration) {
        keySetIds.clear();
        keyGeneration = current.keyGeneration;
      }
      const values: SQLInputValue[] = [];
      let rows = 0;
      for (const event of events) {
        const atMs = instant(event.at);
        ts = Math.max(ts, atMs);
        if (ts - atMs > maxLag) {
          maxLag = ts - atMs;
          sql.get('UPDATE audit_clock SET max_lag = ? WHERE one = 1').run(maxLag);
        }
        values.push(
          event.event_id,
          event.subject_id,
          event.grant_id ?? null,
          event.actor.kind,
          event.actor.id,
          event.action,
          event.outcome,
          event.detail ?? null,
          keySet(event.claim_keys),
          event.at,
          atMs,
          ts,
        );
        if (++rows === ROWS_PER_INSERT) {
          sql.get(insertSql(rows)).run(...values);
          values.length = 0;
          rows = 0;
        }
      }
      if (rows > 0) sql.get(insertSql(rows)).run(...values);
    },

    listAudit(filter) {
      let first: number | undefined;
      if (filter.since !== undefined) {
        first = firstSeqWithTsAtLeast(instant(filter.since));
        if (first === undefined) return { events: [] };
      }
      const end =
        filter.until === undefined
          ? undefined
          : firstSeqWithTsAtLeast(instant(filter.until) + clock().maxLag);
      const walk = auditWalk(filter, first, end);
      const from = `FROM audit_events e INDEXED BY ${walk.walked === undefined ? 'audit_by_subject' : INDEX[walk.walked.column]}`;
      if (walk.secondary.length > 0) {
        const range = walkRange(walk);
        reachedBy(
          walk,
          sql
            .get(
              `SELECT e.seq ${from} WHERE ${whereOf(range)} ORDER BY e.seq ${walk.direction} LIMIT 2 OFFSET ${AUDIT_MAX_EXAMINED - 1}`,
            )
            .all(...values(range)),
        );
      }
      const clauses = walkClauses(walk);
      const rows = sql
        .get(
          `SELECT ${AUDIT_EVENT_COLUMNS} ${from}
           WHERE ${whereOf(clauses)} ORDER BY e.seq ${walk.direction} LIMIT ?`,
        )
        .all(...values(clauses), walk.limit + 1);
      const ids = keySetsOf(walk, rows);
      const lists =
        ids.length === 0
          ? []
          : // One primary-key lookup per list (a page names few), with one statement text whatever
            // their count: the statement cache keeps one statement per text.
            ids.flatMap((id) => sql.get('SELECT set_id, keys FROM audit_key_sets WHERE set_id = ?').all(id));
      return auditPageOf(walk, rows, lists);
    },

    /**
     * Removes up to `limit` of the oldest events from before `before`, moving the prune horizon
     * (the only way an event may be removed: migration 0011's trigger) up to it first.
     */
    pruneAudit(before, limit) {
      const cutoff = instant(before);
      sql.get('UPDATE audit_prune_horizon SET before_ms = max(before_ms, ?) WHERE one = 1').run(cutoff);
      // Past the first event whose clock reads cutoff + max_lag, every event is from after cutoff.
      const end = firstSeqWithTsAtLeast(cutoff + clock().maxLag) ?? Number.MAX_SAFE_INTEGER;
      const result = sql
        .get(
          `DELETE FROM audit_events WHERE seq IN (
             SELECT seq FROM audit_events WHERE seq < ? AND at_ms < ? ORDER BY seq LIMIT ?)`,
        )
        .run(end, cutoff, Math.max(1, Math.trunc(limit)));
      return Number(result.changes);
    },

    /** Removes the claim-key lists no event refers to any more (after pruning); reads the whole log. */
    pruneAuditKeySets() {
      const result = sql
        .get(
          `DELETE FROM audit_key_sets WHERE set_id NOT IN (
             SELECT key_set FROM audit_events WHERE key_set IS NOT NULL)`,
        )
        .run();
      const removed = Number(result.changes);
      if (removed > 0)
        sql.get('UPDATE audit_clock SET key_generation = key_generation + 1 WHERE one = 1').run();
      return removed;
    },
  };
}
