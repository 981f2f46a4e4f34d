-- The size of each stored A2A task (issue 22 item 11; SQLite 0014): one grant may keep at most
-- 100 tasks and 2 MiB of task bodies, its oldest going first. The size is the body's UTF-8
-- length, kept beside it so the trim sums a column instead of the bodies.
ALTER TABLE a2a_tasks ADD COLUMN body_bytes bigint NOT NULL DEFAULT 0;
UPDATE a2a_tasks SET body_bytes = octet_length(body);
