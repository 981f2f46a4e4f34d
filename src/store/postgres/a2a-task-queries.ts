import { pageSize } from '../a2a-task-store.ts';
import type { A2aTaskArea } from '../query-areas.ts';
import { TASK_COLUMNS, taskFromRow, taskListClauses, taskPageOf } from '../row-mappers.ts';
import { placeholders, TASK_WRITTEN_COLUMNS, taskRow } from '../row-values.ts';
import { instant, integer, valuesOf, whereOf } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { Sql } from './sql.ts';

export type A2aTaskQueries = A2aTaskArea;

/**
 * A2A tasks (the SQLite side's a2a-task-queries.ts). Every read names the owner in its WHERE
 * clause; a listing is a keyset walk newest first from its cursor, the (updated_ms, task_id) of
 * the last task it gave. putA2aTask is one upsert whose WHERE keeps the owner.
 */
export function a2aTaskQueries(sql: Sql): A2aTaskQueries {
  return {
    async getA2aTask(taskId, owner) {
      const row = await sql.get(
        `SELECT ${TASK_COLUMNS} FROM a2a_tasks WHERE task_id = ? AND owner = ?`,
        taskId,
        owner,
      );
      return row === undefined ? undefined : taskFromRow(row);
    },
    async listA2aTasks(owner, query) {
      const size = pageSize(query.pageSize);
      const { filters, paged } = taskListClauses(owner, query);
      const rows = await sql.all(
        `SELECT ${TASK_COLUMNS} FROM a2a_tasks WHERE ${whereOf(paged)} ORDER BY updated_ms DESC, task_id LIMIT ?`,
        ...valuesOf(paged),
        size + 1,
      );
      const totalRow = await sql.get(
        `SELECT count(*) AS n FROM a2a_tasks WHERE ${whereOf(filters)}`,
        ...valuesOf(filters),
      );
      return taskPageOf(rows, size, totalRow === undefined ? 0 : integer(totalRow, 'n'));
    },
    async deleteA2aTasksOf(owner) {
      return sql.run('DELETE FROM a2a_tasks WHERE owner = ?', owner);
    },
    async deleteA2aTasksReading(grantId) {
      return sql.run('DELETE FROM a2a_tasks WHERE counterpart = ?', grantId);
    },
    async trimA2aTasksOf(owner, cap, keep) {
      // Ranked newest first (the kept task first of all), with the bytes summed down the ranking.
      return sql.run(
        `DELETE FROM a2a_tasks WHERE owner = ? AND task_id IN (
           SELECT task_id FROM (
             SELECT task_id, row_number() OVER w AS n, sum(body_bytes) OVER w AS running
             FROM a2a_tasks WHERE owner = ?
             WINDOW w AS (ORDER BY CASE WHEN task_id = ? THEN 0 ELSE 1 END, updated_ms DESC, task_id
                          ROWS UNBOUNDED PRECEDING)
           ) ranked WHERE n > 1 AND (n > ? OR running > ?))`,
        owner,
        owner,
        keep,
        cap.tasks,
        cap.bytes,
      );
    },
    async pruneA2aTasks(before, limit) {
      const ms = Date.parse(before);
      if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${before}`);
      return sql.run(
        `DELETE FROM a2a_tasks WHERE task_id IN (
           SELECT task_id FROM a2a_tasks WHERE updated_ms < ? ORDER BY updated_ms LIMIT ?)`,
        ms,
        Math.max(0, Math.trunc(limit)),
      );
    },
    async putA2aTask(record) {
      const changed = await sql.run(
        `INSERT INTO a2a_tasks (${TASK_WRITTEN_COLUMNS}) VALUES (${placeholders(TASK_WRITTEN_COLUMNS)})
         ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
           updated_at = excluded.updated_at, updated_ms = excluded.updated_ms, body = excluded.body,
           body_bytes = excluded.body_bytes, counterpart = excluded.counterpart
         WHERE a2a_tasks.owner = excluded.owner`,
        ...taskRow(record, instant(record.updated_at)),
      );
      if (changed === 0) throw new IdConflictError(record.task_id, 'A2A task');
    },
  };
}
