import { type ListTasksRequest, type ListTasksResponse, Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { A2aTaskRecord } from '../../model/a2a-task.ts';
import { listA2aTasks, loadA2aTask, saveA2aTask } from '../../operations/a2a/tasks.ts';
import type { Deps } from '../../operations/deps.ts';
import { jsonText } from '../shared/json-text.ts';
import { type Drawing, drawn, undrawn } from './a2ui-parts.ts';
import { grantContextOf } from './call-context.ts';

// The SDK's TaskStore over the provider's store (operations/a2a/tasks.ts): tasks are saved as
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
      // The PPX result only: the A2UI parts are drawn from it again on each read (issue 22 item 11).
      // JSON.stringify, its shared PPX object's text kept (a direct send's, shared/json-text.ts).
      body: jsonText(Task.toJSON(undrawn(task)), 5),
      ...counterpartOf(task, context),
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const record = await loadA2aTask(this.#deps, taskId, ownerOf(context));
    return record === undefined ? undefined : this.#shown(record, drawingOf(context));
  }

  /**
   * The stored task as this call reads it: without its result once that is older than
   * RESULT_TTL_MS; with the result's A2UI parts drawn again when the call asked for A2UI.
   */
  #shown(record: A2aTaskRecord, draw: Drawing | undefined): Task {
    const task = Task.fromJSON(JSON.parse(record.body));
    const now = this.#deps.clock();
    const age = now.getTime() - Date.parse(record.updated_at);
    if (task.artifacts.length === 0) return task;
    if (age > RESULT_TTL_MS)
      return { ...task, artifacts: [], metadata: { ...task.metadata, result_expired: true } };
    return draw ? drawn(task, now, draw) : task;
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
    // A2A ListTasksRequest: artifacts only when the caller includes them (the SDK's own store
    // reads it so); without, a listing stays small however large the results.
    const draw = drawingOf(context);
    const shown = page.tasks.map((r) =>
      params.includeArtifacts === true
        ? this.#shown(r, draw)
        : { ...this.#shown(r, undefined), artifacts: [] },
    );
    return {
      tasks: shown,
      nextPageToken: page.next ?? '',
      pageSize,
      totalSize: page.total,
    };
  }
}

/**
 * The counterpart grant a task's result drew on (a compatibility view's `counterpart_grant_id`),
 * read from the input of the send that made it (as app.ts parsed it), so that a deletion that grant
 * could see finds the task. Only a completed view drew on it: a refused one names a grant its
 * caller may not hold, and recording it would let that caller watch another person's deletions
 * through its own tasks.
 */
function counterpartOf(task: Task, context: ServerCallContext): { counterpart?: string } {
  if (task.status?.state !== TaskState.TASK_STATE_COMPLETED) return {};
  const input = grantContextOf(context)?.asked?.input as { counterpart_grant_id?: unknown } | undefined;
  const id = input?.counterpart_grant_id;
  return typeof id === 'string' ? { counterpart: id } : {};
}

/** How the call asked for A2UI, if it did (app.ts sets it in the call's context). */
function drawingOf(context: ServerCallContext): Drawing | undefined {
  const a2ui = grantContextOf(context)?.a2ui;
  return a2ui === undefined ? undefined : { a2ui, a2a: context.requestedVersion };
}

/** The grant a call runs under (app.ts makes it the call's user): the owner of its tasks. */
function ownerOf(context: ServerCallContext): string {
  const owner = context.user?.userName;
  // app.ts authenticates every call before the SDK sees it; no owner would be a bug, never a share.
  if (!owner) throw new Error('an A2A call reached the task store without its grant');
  return owner;
}
