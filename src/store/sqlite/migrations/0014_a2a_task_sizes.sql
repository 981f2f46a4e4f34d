-- The size of each stored A2A task (issue 22 item 11): one grant may keep at most 100 tasks and
-- 2 MiB of task bodies (operations/a2a-tasks.ts#TASK_CAP_BYTES), its oldest going first. The size
-- is the body's UTF-8 length, kept beside it so the trim sums a column instead of the bodies.
ALTER TABLE a2a_tasks ADD COLUMN body_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE a2a_tasks SET body_bytes = length(CAST(body AS BLOB));

-- The other grant a task's result drew on (a compatibility view's counterpart grant, of another
-- subject): a deletion that grant could see removes the task too (issue 22 item 1). Null for
-- every other task, and for the tasks stored before (their results expire within 10 minutes).
ALTER TABLE a2a_tasks ADD COLUMN counterpart TEXT;
CREATE INDEX a2a_tasks_by_counterpart ON a2a_tasks (counterpart) WHERE counterpart IS NOT NULL;
