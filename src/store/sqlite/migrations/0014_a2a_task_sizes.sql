-- The size of each stored A2A task (issue 22 item 11): one grant may keep at most 100 tasks and
-- 2 MiB of task bodies (operations/a2a-tasks.ts#TASK_CAP_BYTES), its oldest going first. The size
-- is the body's UTF-8 length, kept beside it so the trim sums a column instead of the bodies.
ALTER TABLE a2a_tasks ADD COLUMN body_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE a2a_tasks SET body_bytes = length(CAST(body AS BLOB));
