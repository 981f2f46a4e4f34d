import type { SQLInputValue } from 'node:sqlite';
import {
  CHANGE_KINDS,
  type ChangeDraft,
  type ChangeEvent,
  type ChangeIds,
  type ChangeKind,
} from '../../model/change-event.ts';
import type { ChangeQuery } from '../change-store.ts';
import { integer, type Row, type StatementCache, text, toJson } from './rows.ts';
import { WritebackQueries } from './writeback-queries.ts';

/** The database's clock, as RFC 3339 UTC with milliseconds (like claim_changes). */
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/**
 * The change-event outbox (migration 0009) as synchronous SQL; SqliteQueries inherits it. The
 * caller runs each write in the transaction of the change it records (sqlite-store.ts).
 */
export class ChangeQueries extends WritebackQueries {
  readonly #sql: StatementCache;

  constructor(sql: StatementCache) {
    super(sql);
    this.#sql = sql;
  }

  listChanges(query: ChangeQuery): ChangeEvent[] {
    const limit = Math.min(1000, Math.max(1, Math.trunc(query.limit) || 1));
    const params: SQLInputValue[] = [query.after];
    let sql = 'SELECT seq, at, subject_id, kind, ids, grants FROM changes WHERE seq > ?';
    if (query.subjectId !== undefined) {
      sql += ' AND subject_id = ?';
      params.push(query.subjectId);
    }
    return this.#sql
      .get(`${sql} ORDER BY seq LIMIT ?`)
      .all(...params, limit)
      .map(changeFromRow);
  }

  latestChangeSeq(): number {
    // sqlite_sequence remembers the highest seq ever given, even if that row were pruned.
    const row = this.#sql.get("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").get();
    return row === undefined ? 0 : integer(row, 'seq');
  }

  appendChange(draft: ChangeDraft): ChangeEvent {
    const row = this.#sql
      .get(
        `INSERT INTO changes (at, subject_id, kind, ids, grants) VALUES (?, ?, ?, ?, ?)
         RETURNING seq, at, subject_id, kind, ids, grants`,
      )
      .get(draft.at, draft.subject_id, draft.kind, toJson(draft.ids), toJson(draft.grants));
    if (row === undefined) throw new Error('the change event was not inserted');
    return changeFromRow(row);
  }

  markGrantExpiryAnnounced(grantId: string): boolean {
    const result = this.#sql
      .get(`INSERT OR IGNORE INTO grant_expiries (grant_id, announced_at) VALUES (?, ${NOW})`)
      .run(grantId);
    return Number(result.changes) > 0;
  }
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
