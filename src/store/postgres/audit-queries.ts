import {
  AUDIT_EVENT_COLUMNS,
  AUDIT_MAX_EXAMINED,
  auditPageOf,
  auditWalk,
  keyListDigest,
  keySetsOf,
  reachedBy,
  walkClauses,
  walkRange,
} from '../audit-rows.ts';
import type { AuditArea } from '../query-areas.ts';
import { instant, integer, type Row, valuesOf, whereOf } from '../rows.ts';
import { AUDIT_LOCK } from './locks.ts';
import type { Sql } from './sql.ts';

export type AuditQueries = AuditArea;

/**
 * The audit log (the SQLite side's audit-queries.ts, migration 0011 there): events as columns,
 * claim-key lists stored once, one index per filter. A listing reads one subject's events in `seq`
 * order from its cursor, either way, examining at most AUDIT_MAX_EXAMINED rows beyond its page when
 * a filter is not covered by the index; `since` and `until` become `seq` bounds by a binary search
 * over the log's clock `ts`. Appends are serialized by the audit log's own lock (AUDIT_LOCK): `ts` is
 * computed from the newest event, and `seq` order must be commit order.
 */
export function auditQueries(sql: Sql, writeLock: string, durably = false): AuditQueries {
  const newest = () => sql.get('SELECT seq, ts FROM audit_events ORDER BY seq DESC LIMIT 1');
  const clock = async () => {
    const row = await sql.get('SELECT max_lag FROM audit_clock WHERE one = 1');
    return row === undefined ? 0 : integer(row, 'max_lag');
  };
  /** The smallest seq whose ts is at least `ms`, by binary search (ts never decreases with seq). */
  const firstSeqWithTsAtLeast = async (ms: number): Promise<number | undefined> => {
    const last = await newest();
    if (last === undefined || integer(last, 'ts') < ms) return undefined;
    const firstFrom = async (seq: number) =>
      (await sql.get('SELECT seq, ts FROM audit_events WHERE seq >= ? ORDER BY seq LIMIT 1', seq)) as Row;
    let low = 0;
    let high = integer(last, 'seq');
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const row = await firstFrom(mid);
      if (integer(row, 'ts') >= ms) high = mid;
      else low = integer(row, 'seq') + 1;
    }
    return integer(await firstFrom(low), 'seq');
  };
  return {
    async appendAudit(events) {
      if (events.length === 0) return;
      // One statement (migrations 0004, 0008): the key lists, the clock and the rows, under the audit log's
      // lock. On its own (`durably`, migration 0007) the lock is held for the insert only, and the
      // call returns once the commit is flushed; inside a transaction it goes with that COMMIT.
      // Each distinct key list once, by its digest (migration 0008); the events name the digest.
      const keySets = new Map<string, string>();
      const batch = events.map((event) => {
        let digest: string | null = null;
        if (event.claim_keys.length > 0) {
          const keys = JSON.stringify(event.claim_keys);
          digest = keyListDigest(keys);
          keySets.set(digest, keys);
        }
        return {
          event_id: event.event_id,
          subject_id: event.subject_id,
          grant_id: event.grant_id ?? null,
          actor_kind: event.actor.kind,
          actor_id: event.actor.id,
          action: event.action,
          outcome: event.outcome,
          detail: event.detail ?? null,
          at: event.at,
          at_ms: instant(event.at),
          digest,
        };
      });
      await sql.run(
        durably
          ? 'CALL ppx_append_audit_batch_durably(?, ?, ?::jsonb, ?::jsonb)'
          : 'SELECT ppx_append_audit_batch(?, ?, ?::jsonb, ?::jsonb)',
        AUDIT_LOCK,
        writeLock,
        JSON.stringify(batch),
        JSON.stringify([...keySets].map(([digest, keys]) => ({ digest, keys }))),
      );
    },

    async listAudit(filter) {
      let first: number | undefined;
      if (filter.since !== undefined) {
        first = await firstSeqWithTsAtLeast(instant(filter.since));
        if (first === undefined) return { events: [] };
      }
      const end =
        filter.until === undefined
          ? undefined
          : await firstSeqWithTsAtLeast(instant(filter.until) + (await clock()));
      const walk = auditWalk(filter, first, end);
      if (walk.secondary.length > 0) {
        const range = walkRange(walk);
        reachedBy(
          walk,
          await sql.all(
            `SELECT e.seq FROM audit_events e WHERE ${whereOf(range)}
             ORDER BY e.seq ${walk.direction} LIMIT 2 OFFSET ${AUDIT_MAX_EXAMINED - 1}`,
            ...valuesOf(range),
          ),
        );
      }
      const clauses = walkClauses(walk);
      const rows = await sql.all(
        `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_events e
         WHERE ${whereOf(clauses)} ORDER BY e.seq ${walk.direction} LIMIT ?`,
        ...valuesOf(clauses),
        walk.limit + 1,
      );
      // The page first, then its key lists, each once (a join before the LIMIT may make the
      // planner hash-join every event of the subject: 12 ms for 11,000 events).
      const ids = keySetsOf(walk, rows);
      const lists =
        ids.length === 0
          ? []
          : await sql.all('SELECT set_id, keys FROM audit_key_sets WHERE set_id = ANY(?::bigint[])', ids);
      return auditPageOf(walk, rows, lists);
    },

    async pruneAudit(before, limit) {
      const cutoff = instant(before);
      await sql.run(
        'UPDATE audit_prune_horizon SET before_ms = greatest(before_ms, ?::bigint) WHERE one = 1',
        cutoff,
      );
      // Past the first event whose clock reads cutoff + max_lag, every event is from after cutoff.
      const end = (await firstSeqWithTsAtLeast(cutoff + (await clock()))) ?? Number.MAX_SAFE_INTEGER;
      return sql.run(
        `DELETE FROM audit_events WHERE seq IN (
           SELECT seq FROM audit_events WHERE seq < ? AND at_ms < ? ORDER BY seq LIMIT ?)`,
        end,
        cutoff,
        Math.max(1, Math.trunc(limit)),
      );
    },

    async pruneAuditKeySets() {
      const removed = await sql.run(
        `DELETE FROM audit_key_sets WHERE set_id NOT IN (
           SELECT key_set FROM audit_events WHERE key_set IS NOT NULL)`,
      );
      if (removed > 0) {
        await sql.run('UPDATE audit_clock SET key_generation = key_generation + 1 WHERE one = 1');
      }
      return removed;
    },
  };
}
