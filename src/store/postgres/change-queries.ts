import { CHANGE_KINDS, type ChangeEvent, type ChangeIds, type ChangeKind } from '../../model/change-event.ts';
import type { StoreTx } from '../store.ts';
import { integer, text, toJson } from './rows.ts';
import type { Row, Sql } from './sql.ts';

export type ChangeQueries = Pick<
  StoreTx,
  'listChanges' | 'latestChangeSeq' | 'appendChange' | 'markGrantExpiryAnnounced'
>;

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
              'SELECT seq, at, subject_id, kind, ids, grants FROM changes WHERE seq > ? ORDER BY seq LIMIT ?',
              query.after,
              limit,
            )
          : await sql.all(
              `SELECT seq, at, subject_id, kind, ids, grants FROM changes WHERE seq > ? AND subject_id = ?
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
         RETURNING seq, at, subject_id, kind, ids, grants`,
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

const KINDS: ReadonlySet<string> = new Set(CHANGE_KINDS);

/** A stored kind, checked: a row this build does not know is a store failure, not a guess. */
function changeKind(kind: string): ChangeKind {
  if (!KINDS.has(kind)) throw new Error(`the outbox holds a change of unknown kind "${kind}"`);
  return kind as ChangeKind;
}

function changeFromRow(row: Row): ChangeEvent {
  return {
    seq: integer(row, 'seq'),
    at: text(row, 'at'),
    subject_id: text(row, 'subject_id'),
    kind: changeKind(text(row, 'kind')),
    ids: JSON.parse(text(row, 'ids')) as ChangeIds,
    grants: JSON.parse(text(row, 'grants')) as string[],
  };
}
