-- The owner's index also holds each task's body_bytes (issue 27, item 5). Every A2A save trims its
-- grant's tasks to the cap, which sums body_bytes over the owner's tasks; the column came last
-- (0014), after the body, and a body of a few KB lives in overflow pages, so each row's
-- body_bytes was reached by walking its overflow chain: three pages a task, a hundred tasks a
-- save. From the index, the totals and the ranking read no row at all. SQLite only: PostgreSQL
-- keeps a large body out of line (TOAST) and reads the column without it.
DROP INDEX a2a_tasks_by_owner;
CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, updated_ms DESC, task_id, body_bytes);
