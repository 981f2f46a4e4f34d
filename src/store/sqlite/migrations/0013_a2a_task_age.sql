-- A2A task retention (operations/a2a-tasks.ts#pruneA2aTaskRows): rows older than a day are
-- removed oldest first, which without this index would read the whole table every hour.
CREATE INDEX a2a_tasks_by_age ON a2a_tasks (updated_ms);
