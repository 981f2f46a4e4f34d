import { type ListTasksRequest, type ListTasksResponse, Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { A2aTaskRecord } from '../../model/a2a-task.ts';
import { listA2aTasks, loadA2aTask, saveA2aTask } from '../../operations/a2a-tasks.ts';
import type { Deps } from '../../operations/deps.ts';

// The SDK's TaskStore over the provider's store (operations/a2a-tasks.ts): tasks are saved as
// A2A 1.0 JSON (`Task.toJSON`, read back with `fromJSON`: an exact round trip), owned by the
// grant the call runs under, which app.ts makes the call's user.

const DEFAULT_PAGE = 50;

/**
 * How long a stored task still holds its result (the PPX object in its artifact): long enough to
 * fetch it again after a dropped connection, short enough that a task does not go on showing
 * claims the person has since deleted or narrowed away. Afterwards GetTask and ListTasks give
 * the task with its status and no artifact (`metadata.result_expired: true`): ask again for a
 * fresh answer, checked against the grant as it is now.
 */
export const RESULT_TTL_MS = 10 * 60_000;

export class StoredTaskStore implements TaskStore {
  readonly #deps: Deps;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const now = this.#deps.clock().toISOString();
    await saveA2aTask(this.#deps, {
      task_id: task.id,
      owner: ownerOf(context),
      context_id: task.contextId,
      state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      created_at: now,
      updated_at: task.status?.timestamp ?? now,
      body: JSON.stringify(Task.toJSON(task)),
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const record = await loadA2aTask(this.#deps, taskId, ownerOf(context));
    return record === undefined ? undefined : this.#shown(record);
  }

  /** The stored task, without its result once that is older than RESULT_TTL_MS. */
  #shown(record: A2aTaskRecord): Task {
    const task = Task.fromJSON(JSON.parse(record.body));
    const age = this.#deps.clock().getTime() - Date.parse(record.updated_at);
    if (age <= RESULT_TTL_MS || task.artifacts.length === 0) return task;
    return { ...task, artifacts: [], metadata: { ...task.metadata, result_expired: true } };
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE;
    const filtered =
      params.status !== TaskState.TASK_STATE_UNSPECIFIED && params.status !== TaskState.UNRECOGNIZED;
    const page = await listA2aTasks(this.#deps, ownerOf(context), {
      pageSize,
      ...(params.contextId ? { contextId: params.contextId } : {}),
      ...(filtered ? { state: taskStateToJSON(params.status) } : {}),
      ...(params.pageToken ? { after: params.pageToken } : {}),
    });
    return {
      tasks: page.tasks.map((r) => this.#shown(r)),
      nextPageToken: page.next ?? '',
      pageSize,
      totalSize: page.total,
    };
  }
}

/** The grant a call runs under (app.ts makes it the call's user): the owner of its tasks. */
function ownerOf(context: ServerCallContext): string {
  const owner = context.user?.userName;
  // app.ts authenticates every call before the SDK sees it; no owner would be a bug, never a share.
  if (!owner) throw new Error('an A2A call reached the task store without its grant');
  return owner;
}
