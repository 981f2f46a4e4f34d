-- The size of each stored A2A task (issue 22 item 11; SQLite 0014): one grant may keep at most
-- 100 tasks and 2 MiB of task bodies, its oldest going first. The size is the body's UTF-8
-- length, kept beside it so the trim sums a column instead of the bodies.
ALTER TABLE a2a_tasks ADD COLUMN body_bytes bigint NOT NULL DEFAULT 0;
UPDATE a2a_tasks SET body_bytes = octet_length(body);

-- The other grant a task's result drew on (a compatibility view's counterpart grant): a deletion
-- that grant could see removes the task too (issue 22 item 1). Null for every other task.
ALTER TABLE a2a_tasks ADD COLUMN counterpart text COLLATE "C";
CREATE INDEX a2a_tasks_by_counterpart ON a2a_tasks (counterpart) WHERE counterpart IS NOT NULL;
