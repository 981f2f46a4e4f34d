import type { SQLInputValue } from 'node:sqlite';
import type { ChangeArea, Sync } from '../query-areas.ts';
import { CHANGE_COLUMNS, changeFromRow } from '../row-mappers.ts';
import { integer, toJson } from '../rows.ts';
import type { StatementCache } from './statement-cache.ts';

/** The database's clock, as RFC 3339 UTC with milliseconds (like claim_changes). */
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/**
 * The change-event outbox (migration 0009) as synchronous SQL. The caller runs each write in the
 * transaction of the change it records (sqlite-store.ts).
 */
export function changeQueries(sql: StatementCache): Sync<ChangeArea> {
  return {
    listChanges(query) {
      const limit = Math.min(1000, Math.max(1, Math.trunc(query.limit) || 1));
      const params: SQLInputValue[] = [query.after];
      let select = `SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq > ?`;
      if (query.subjectId !== undefined) {
        select += ' AND subject_id = ?';
        params.push(query.subjectId);
      }
      return sql
        .get(`${select} ORDER BY seq LIMIT ?`)
        .all(...params, limit)
        .map(changeFromRow);
    },
    latestChangeSeq() {
      // sqlite_sequence remembers the highest seq ever given, even if that row were pruned.
      const row = sql.get("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").get();
      return row === undefined ? 0 : integer(row, 'seq');
    },
    appendChange(draft) {
      const row = sql
        .get(
          `INSERT INTO changes (at, subject_id, kind, ids, grants) VALUES (?, ?, ?, ?, ?)
           RETURNING ${CHANGE_COLUMNS}`,
        )
        .get(draft.at, draft.subject_id, draft.kind, toJson(draft.ids), toJson(draft.grants));
      if (row === undefined) throw new Error('the change event was not inserted');
      return changeFromRow(row);
    },
    markGrantExpiryAnnounced(grantId) {
      const result = sql
        .get(`INSERT OR IGNORE INTO grant_expiries (grant_id, announced_at) VALUES (?, ${NOW})`)
        .run(grantId);
      return Number(result.changes) > 0;
    },
  };
}
