-- A2A tasks (issue 13; docs/store.md, "A2A tasks"): the tasks of the preference agent, kept in the
-- store so that they survive a restart and are found from any instance. One row per task; the Task
-- is stored whole, as the SDK's JSON, in `body`, and the plain columns are copied out of it to be
-- looked up on. `owner` is the grant the task was made under: every read names it, so a grantee
-- finds its own tasks only. No foreign key to grants: a task stays as the record of a call, like
-- the audit log, after its grant is revoked.
CREATE TABLE a2a_tasks (
  task_id    TEXT PRIMARY KEY,
  owner      TEXT NOT NULL,
  context_id TEXT NOT NULL,
  -- The SDK's JSON name of the state, e.g. 'TASK_STATE_COMPLETED'.
  state      TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- The instant of updated_at (epoch ms), which listings order and page by: text compares wrongly
  -- between two offsets.
  updated_ms INTEGER NOT NULL,
  body       TEXT NOT NULL CHECK (json_valid(body))
) STRICT;

-- A listing reads one owner's tasks newest first, from where its cursor points, either over all
-- of them or over one context; a state filter is checked along the walk.
CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, updated_ms DESC, task_id);
CREATE INDEX a2a_tasks_by_context ON a2a_tasks (owner, context_id, updated_ms DESC, task_id);
