/**
 * An A2A task as the provider keeps it (issue 13), so that a task survives a restart and is found
 * from any instance. The task itself is stored whole, as the JSON the A2A SDK gives it; the other
 * fields are what the provider looks tasks up by, copied out of it when it is saved.
 */
export interface A2aTaskRecord {
  /** The A2A task id. */
  readonly task_id: string;
  /**
   * The grant id the task was made under: only that grant's caller may see it. It never changes:
   * a task id is never handed from one grant to another.
   */
  readonly owner: string;
  /** The A2A `contextId`. */
  readonly context_id: string;
  /** The task's state as the SDK's JSON names it, e.g. `TASK_STATE_COMPLETED`. */
  readonly state: string;
  /** When the task was first saved (RFC 3339); a later save keeps it. */
  readonly created_at: string;
  /** When the task was last saved (RFC 3339); listings run newest first by it. */
  readonly updated_at: string;
  /**
   * Another grant whose reach the task's result drew on: a compatibility view's counterpart
   * grant (a second subject's). A deletion that grant could see removes the task too (issue 22
   * item 1). Absent for every other task.
   */
  readonly counterpart?: string;
  /** The Task as JSON text (the SDK's `Task.toJSON`), stored and given back byte for byte. */
  readonly body: string;
}
