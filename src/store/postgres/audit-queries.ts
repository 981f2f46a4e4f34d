import { createHash } from 'node:crypto';
import type { AuditEvent } from '../../model/audit-event.ts';
import { AUDIT_MAX_EXAMINED } from '../sqlite/audit-queries.ts';
import type { StoreTx } from '../store.ts';
import { AUDIT_LOCK } from './locks.ts';
import { clampLimit, decodeCursor, encodeCursor, instant, integer } from './rows.ts';
import type { Row, Sql } from './sql.ts';

export type AuditQueries = Pick<StoreTx, 'appendAudit' | 'listAudit' | 'pruneAudit' | 'pruneAuditKeySets'>;

/** The equality filters, in the order one is chosen to key the walk (the most selective first). */
const EQUALITIES = [
  { field: 'grant_id', column: 'grant_id' },
  { field: 'actor_id', column: 'actor_id' },
  { field: 'action', column: 'action' },
] as const;

const EVENT_COLUMNS =
  'e.seq, e.event_id, e.subject_id, e.grant_id, e.actor_kind, e.actor_id, e.action, e.outcome, e.detail, e.key_set, e.at, k.keys';

type Clause = readonly [string, unknown];

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
      // One statement (migration 0004): the clock, the key lists and the rows, under the audit log's
      // lock. On its own (`durably`, migration 0007) the lock is held for the insert only, and the
      // call returns once the commit is flushed; inside a transaction it goes with that COMMIT.
      const batch = events.map((event) => {
        const keys = event.claim_keys.length === 0 ? null : JSON.stringify(event.claim_keys);
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
          digest: keys === null ? null : createHash('sha256').update(keys).digest('base64url'),
          keys,
        };
      });
      await sql.run(
        durably ? 'CALL ppx_append_audit_durably(?, ?, ?::json)' : 'SELECT ppx_append_audit(?, ?, ?::json)',
        AUDIT_LOCK,
        writeLock,
        JSON.stringify(batch),
      );
    },

    async listAudit(filter) {
      const isNewest = filter.order === 'newest';
      const kind = isNewest ? 'audit-newest' : 'audit';
      const limit = clampLimit(filter.limit);
      let after = 0;
      let before = Number.MAX_SAFE_INTEGER;
      const secondary: Clause[] = [];
      if (filter.since !== undefined) {
        const since = instant(filter.since);
        // Every event at or after `since` has ts >= since (ts is never behind at_ms).
        const first = await firstSeqWithTsAtLeast(since);
        if (first === undefined) return { events: [] };
        after = first - 1;
        secondary.push(['e.at_ms >= ?', since]);
      }
      if (filter.until !== undefined) {
        const until = instant(filter.until);
        // An event's at_ms is at least ts - max_lag, so none from here on is before `until`.
        const end = await firstSeqWithTsAtLeast(until + (await clock()));
        if (end !== undefined) before = end;
        secondary.push(['e.at_ms < ?', until]);
      }
      if (filter.cursor !== undefined) {
        const seq = decodeCursor(kind, filter.cursor);
        if (isNewest) before = Math.min(before, seq);
        else after = Math.max(after, seq);
      }
      const equalities = EQUALITIES.filter((e) => filter[e.field] !== undefined);
      const [walked, ...others] = equalities;
      for (const e of others) secondary.push([`e.${e.column} = ?`, filter[e.field]]);
      const keyed: Clause[] = [['e.subject_id = ?', filter.subject_id]];
      if (walked !== undefined) keyed.push([`e.${walked.column} = ?`, filter[walked.field]]);
      const direction = isNewest ? 'DESC' : 'ASC';
      const where = (clauses: readonly Clause[]) => clauses.map(([clause]) => clause).join(' AND ');
      const values = (clauses: readonly Clause[]) => clauses.map(([, value]) => value);

      // With filters the index does not cover, first find how far AUDIT_MAX_EXAMINED rows reach.
      let windowEnd: number | undefined;
      let beyondWindow = false;
      if (secondary.length > 0) {
        const range: Clause[] = [...keyed, ['e.seq > ?', after], ['e.seq < ?', before]];
        const reach = await sql.all(
          `SELECT e.seq FROM audit_events e WHERE ${where(range)}
           ORDER BY e.seq ${direction} LIMIT 2 OFFSET ${AUDIT_MAX_EXAMINED - 1}`,
          ...values(range),
        );
        if (reach[0] !== undefined) {
          windowEnd = integer(reach[0], 'seq');
          beyondWindow = reach.length > 1;
          if (isNewest) after = windowEnd - 1;
          else before = windowEnd + 1;
        }
      }
      const clauses: Clause[] = [...keyed, ['e.seq > ?', after], ['e.seq < ?', before], ...secondary];
      const rows = await sql.all(
        // The page first, then its key lists: joined before the LIMIT, the planner may hash-join
        // every event of the subject and sort them all (12 ms for 11,000 events, statistics or not).
        `SELECT ${EVENT_COLUMNS} FROM (
           SELECT * FROM audit_events e WHERE ${where(clauses)} ORDER BY e.seq ${direction} LIMIT ?
         ) e LEFT JOIN audit_key_sets k ON k.set_id = e.key_set ORDER BY e.seq ${direction}`,
        ...values(clauses),
        limit + 1,
      );
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
