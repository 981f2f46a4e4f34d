import type { ChangeArea } from '../query-areas.ts';
import { CHANGE_COLUMNS, changeFromRow } from '../row-mappers.ts';
import { integer, toJson } from '../rows.ts';
import type { Sql } from './sql.ts';

export type ChangeQueries = ChangeArea;

/**
 * The change-event outbox (the SQLite side's change-queries.ts). A seq is the next value of the
 * change_seq counter row, taken by the appending transaction (migration 0001: consecutive in commit
 * order, none consumed by a rollback).
 */
export function changeQueries(sql: Sql): ChangeQueries {
  return {
    async listChanges(query) {
      const limit = Math.min(1000, Math.max(1, Math.trunc(query.limit) || 1));
      const rows =
        query.subjectId === undefined
          ? await sql.all(
              `SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`,
              query.after,
              limit,
            )
          : await sql.all(
              `SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq > ? AND subject_id = ?
               ORDER BY seq LIMIT ?`,
              query.after,
              query.subjectId,
              limit,
            );
      return rows.map(changeFromRow);
    },
    async latestChangeSeq() {
      const row = await sql.get('SELECT seq FROM change_seq WHERE one = 1');
      return row === undefined ? 0 : integer(row, 'seq');
    },
    async appendChange(draft) {
      const row = await sql.get(
        `WITH next AS (UPDATE change_seq SET seq = seq + 1 WHERE one = 1 RETURNING seq)
         INSERT INTO changes (seq, at, subject_id, kind, ids, grants)
         SELECT next.seq, ?, ?, ?, ?, ? FROM next
         RETURNING ${CHANGE_COLUMNS}`,
        draft.at,
        draft.subject_id,
        draft.kind,
        toJson(draft.ids),
        toJson(draft.grants),
      );
      if (row === undefined) throw new Error('the change event was not inserted');
      return changeFromRow(row);
    },
    async markGrantExpiryAnnounced(grantId) {
      const inserted = await sql.run(
        'INSERT INTO grant_expiries (grant_id, announced_at) VALUES (?, ppx_now()) ON CONFLICT DO NOTHING',
        grantId,
      );
      return inserted > 0;
    },
  };
}
