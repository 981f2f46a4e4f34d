import type { SQLInputValue } from 'node:sqlite';
import { pageSize } from '../a2a-task-store.ts';
import type { A2aTaskArea, Sync } from '../query-areas.ts';
import { TASK_COLUMNS, taskFromRow, taskListClauses, taskPageOf } from '../row-mappers.ts';
import { placeholders, TASK_WRITTEN_COLUMNS, taskRow } from '../row-values.ts';
import { instant, integer, valuesOf, whereOf } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { StatementCache } from './statement-cache.ts';

/**
 * A2A tasks (migration 0012) as synchronous SQL. Every read names the owner in its WHERE clause, so
 * another grant's task is never read, not even to be dropped after. A listing walks one index
 * newest first from its cursor, the (updated_ms, task_id) of the last task it gave: a keyset, so a
 * page costs the same however deep it is, and a save between two pages neither repeats nor skips a
 * task that stayed where it was.
 *
 * putA2aTask is one upsert whose WHERE keeps the owner: a task id of another owner changes no row,
 * which is then reported, as putClaims does for a claim of another profile.
 */
export function a2aTaskQueries(sql: StatementCache): Sync<A2aTaskArea> {
  const changes = (statement: string, ...params: SQLInputValue[]): number =>
    Number(sql.get(statement).run(...params).changes);
  return {
    getA2aTask(taskId, owner) {
      const row = sql
        .get(`SELECT ${TASK_COLUMNS} FROM a2a_tasks WHERE task_id = ? AND owner = ?`)
        .get(taskId, owner);
      return row === undefined ? undefined : taskFromRow(row);
    },
    listA2aTasks(owner, query) {
      const size = pageSize(query.pageSize);
      const { filters, paged } = taskListClauses(owner, query);
      const index = query.contextId === undefined ? 'a2a_tasks_by_owner' : 'a2a_tasks_by_context';
      const rows = sql
        .get(
          `SELECT ${TASK_COLUMNS} FROM a2a_tasks INDEXED BY ${index} WHERE ${whereOf(paged)}
           ORDER BY updated_ms DESC, task_id LIMIT ?`,
        )
        .all(...valuesOf(paged), size + 1);
      const totalRow = sql
        .get(`SELECT count(*) AS n FROM a2a_tasks INDEXED BY ${index} WHERE ${whereOf(filters)}`)
        .get(...valuesOf(filters));
      return taskPageOf(rows, size, totalRow === undefined ? 0 : integer(totalRow, 'n'));
    },
    deleteA2aTasksOf(owner) {
      return changes('DELETE FROM a2a_tasks WHERE owner = ?', owner);
    },
    deleteA2aTasksReading(grantId) {
      return changes('DELETE FROM a2a_tasks WHERE counterpart = ?', grantId);
    },
    trimA2aTasksOf(owner, cap, keep) {
      // Every save trims, so an owner is mostly within its cap, or one task over it: the totals
      // first (one walk of the owner's index), and the ranking only when something must go.
      const totals = sql
        .get('SELECT count(*) AS n, total(body_bytes) AS bytes FROM a2a_tasks WHERE owner = ?')
        .get(owner);
      const count = totals === undefined ? 0 : integer(totals, 'n');
      const bytes = totals === undefined ? 0 : Number(totals['bytes']);
      if (count <= cap.tasks && bytes <= cap.bytes) return 0;
      if (bytes <= cap.bytes) {
        // Over the count alone: the oldest past the cap, in the index's own order (no sort), the
        // kept task counted first.
        return changes(
          `DELETE FROM a2a_tasks WHERE owner = ? AND task_id IN (
             SELECT task_id FROM a2a_tasks INDEXED BY a2a_tasks_by_owner WHERE owner = ? AND task_id <> ?
             ORDER BY updated_ms DESC, task_id LIMIT -1 OFFSET ?)`,
          owner,
          owner,
          keep,
          Math.max(0, cap.tasks - 1),
        );
      }
      // Ranked newest first (the kept task first of all), with the bytes summed down the ranking.
      return changes(
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
    pruneA2aTasks(before, limit) {
      const ms = Date.parse(before);
      if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${before}`);
      return changes(
        `DELETE FROM a2a_tasks WHERE task_id IN (
           SELECT task_id FROM a2a_tasks WHERE updated_ms < ? ORDER BY updated_ms LIMIT ?)`,
        ms,
        Math.max(0, Math.trunc(limit)),
      );
    },
    putA2aTask(record) {
      const result = sql
        .get(
          `INSERT INTO a2a_tasks (${TASK_WRITTEN_COLUMNS}) VALUES (${placeholders(TASK_WRITTEN_COLUMNS)})
           ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
             updated_at = excluded.updated_at, updated_ms = excluded.updated_ms, body = excluded.body,
             body_bytes = excluded.body_bytes, counterpart = excluded.counterpart
           WHERE a2a_tasks.owner = excluded.owner`,
        )
        .run(...taskRow(record, instant(record.updated_at)));
      if (Number(result.changes) === 0) throw new IdConflictError(record.task_id, 'A2A task');
    },
  };
}
