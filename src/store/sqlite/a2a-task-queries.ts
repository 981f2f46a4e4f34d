import type { SQLInputValue } from 'node:sqlite';
import type { A2aTaskRecord } from '../../model/a2a-task.ts';
import {
  type A2aTaskCap,
  type A2aTaskPage,
  type A2aTaskQuery,
  decodeTaskCursor,
  encodeTaskCursor,
  pageSize,
} from '../a2a-task-store.ts';
import { IdConflictError } from '../store.ts';
import { ChangeQueries } from './change-queries.ts';
import { instant, integer, type Row, type StatementCache, text } from './rows.ts';

const COLUMNS = 'task_id, owner, context_id, state, created_at, updated_at, updated_ms, body, counterpart';
/** What an insert writes: the columns read, and the body's size (migration 0014), never read back. */
const WRITTEN = `${COLUMNS}, body_bytes`;

/** A WHERE clause with the values of its placeholders. */
type Clause = readonly [string, ...SQLInputValue[]];

/**
 * A2A tasks (migration 0012) as synchronous SQL; SqliteQueries inherits them. Every read names the
 * owner in its WHERE clause, so another grant's task is never read, not even to be dropped after.
 * A listing walks one index newest first from its cursor, the (updated_ms, task_id) of the last
 * task it gave: a keyset, so a page costs the same however deep it is, and a save between two
 * pages neither repeats nor skips a task that stayed where it was.
 *
 * putA2aTask is one upsert whose WHERE keeps the owner: a task id of another owner changes no row,
 * which is then reported, as putClaims does for a claim of another profile.
 */
export class A2aTaskQueries extends ChangeQueries {
  readonly #sql: StatementCache;

  constructor(sql: StatementCache) {
    super(sql);
    this.#sql = sql;
  }

  getA2aTask(taskId: string, owner: string): A2aTaskRecord | undefined {
    const row = this.#sql
      .get(`SELECT ${COLUMNS} FROM a2a_tasks WHERE task_id = ? AND owner = ?`)
      .get(taskId, owner);
    return row === undefined ? undefined : taskFromRow(row);
  }

  listA2aTasks(owner: string, query: A2aTaskQuery): A2aTaskPage {
    const size = pageSize(query.pageSize);
    const filters: Clause[] = [['owner = ?', owner]];
    if (query.contextId !== undefined) filters.push(['context_id = ?', query.contextId]);
    if (query.state !== undefined) filters.push(['state = ?', query.state]);
    const paged = [...filters];
    if (query.after !== undefined) {
      const [ms, taskId] = decodeTaskCursor(query.after);
      // The first clause bounds the index walk; the second drops the tasks of that same instant
      // up to and including the cursor's (ties run by task_id, ascending).
      paged.push(['updated_ms <= ?', ms], ['(updated_ms < ? OR task_id > ?)', ms, taskId]);
    }
    const index = query.contextId === undefined ? 'a2a_tasks_by_owner' : 'a2a_tasks_by_context';
    const rows = this.#sql
      .get(
        `SELECT ${COLUMNS} FROM a2a_tasks INDEXED BY ${index} WHERE ${where(paged)}
         ORDER BY updated_ms DESC, task_id LIMIT ?`,
      )
      .all(...values(paged), size + 1);
    const totalRow = this.#sql
      .get(`SELECT count(*) AS n FROM a2a_tasks INDEXED BY ${index} WHERE ${where(filters)}`)
      .get(...values(filters));
    const total = totalRow === undefined ? 0 : integer(totalRow, 'n');
    const page = rows.slice(0, size);
    const last = page.at(-1);
    const tasks = page.map(taskFromRow);
    return rows.length > size && last !== undefined
      ? { tasks, next: encodeTaskCursor(integer(last, 'updated_ms'), text(last, 'task_id')), total }
      : { tasks, total };
  }

  deleteA2aTasksOf(owner: string): number {
    return Number(this.#sql.get('DELETE FROM a2a_tasks WHERE owner = ?').run(owner).changes);
  }

  deleteA2aTasksReading(grantId: string): number {
    return Number(this.#sql.get('DELETE FROM a2a_tasks WHERE counterpart = ?').run(grantId).changes);
  }

  trimA2aTasksOf(owner: string, cap: A2aTaskCap, keep: string): number {
    // Ranked newest first (the kept task first of all), with the bytes summed down the ranking.
    const sql = `DELETE FROM a2a_tasks WHERE owner = ? AND task_id IN (
           SELECT task_id FROM (
             SELECT task_id, row_number() OVER w AS n, sum(body_bytes) OVER w AS running
             FROM a2a_tasks WHERE owner = ?
             WINDOW w AS (ORDER BY CASE WHEN task_id = ? THEN 0 ELSE 1 END, updated_ms DESC, task_id
                          ROWS UNBOUNDED PRECEDING)
           ) ranked WHERE n > 1 AND (n > ? OR running > ?))`;
    return Number(this.#sql.get(sql).run(owner, owner, keep, cap.tasks, cap.bytes).changes);
  }

  pruneA2aTasks(before: string, limit: number): number {
    const ms = Date.parse(before);
    if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${before}`);
    const sql =
      'DELETE FROM a2a_tasks WHERE task_id IN (SELECT task_id FROM a2a_tasks WHERE updated_ms < ? ORDER BY updated_ms LIMIT ?)';
    return Number(this.#sql.get(sql).run(ms, Math.max(0, Math.trunc(limit))).changes);
  }

  putA2aTask(record: A2aTaskRecord): void {
    const result = this.#sql
      .get(
        `INSERT INTO a2a_tasks (${WRITTEN}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
           updated_at = excluded.updated_at, updated_ms = excluded.updated_ms, body = excluded.body,
           body_bytes = excluded.body_bytes, counterpart = excluded.counterpart
         WHERE a2a_tasks.owner = excluded.owner`,
      )
      .run(
        record.task_id,
        record.owner,
        record.context_id,
        record.state,
        record.created_at,
        record.updated_at,
        instant(record.updated_at),
        record.body,
        record.counterpart ?? null,
        Buffer.byteLength(record.body),
      );
    if (Number(result.changes) === 0) throw new IdConflictError(record.task_id, 'A2A task');
  }
}

function where(clauses: readonly Clause[]): string {
  return clauses.map(([clause]) => clause).join(' AND ');
}

function values(clauses: readonly Clause[]): SQLInputValue[] {
  return clauses.flatMap(([, ...vs]) => vs);
}

function taskFromRow(row: Row): A2aTaskRecord {
  return {
    task_id: text(row, 'task_id'),
    owner: text(row, 'owner'),
    context_id: text(row, 'context_id'),
    state: text(row, 'state'),
    created_at: text(row, 'created_at'),
    updated_at: text(row, 'updated_at'),
    body: text(row, 'body'),
    ...(typeof row['counterpart'] === 'string' ? { counterpart: row['counterpart'] } : {}),
  };
}
