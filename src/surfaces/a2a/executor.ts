import type { Message, Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { Deps } from '../../operations/deps.ts';
import { a2uiParts } from './a2ui-parts.ts';
import { type GrantCallContext, grantContextOf } from './call-context.ts';
import { completedTask, failedTask, type TaskIds } from './tasks.ts';

// The preference agent's work for one message: the skill app.ts found in it, run as the grant the
// request was authenticated with (both in the call's context, call-context.ts), answered as one
// completed or failed task. PPX operations are short: a task is done when its first event is
// published.

export class PreferenceAgentExecutor implements AgentExecutor {
  readonly #deps: Deps;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const ids = { taskId: request.taskId, contextId: request.contextId };
    const task = await answeredTask(this.#deps, grantContextOf(request.context), ids, request.userMessage);
    bus.publish(AgentEvent.task(task));
    bus.finished();
  }

  /** Nothing runs long enough to cancel: a task is finished by the time anyone can name it. */
  async cancelTask(): Promise<void> {}
}

/**
 * The task that answers a message: its skill run as the call's grant, completed with the result
 * (and its A2UI parts when the call asked for them) or failed with the PPX error; its history the
 * user's message, under the task's ids. What the SDK's executor publishes, and what a direct
 * answer (direct-send.ts) saves and sends. A call whose skill already threw once
 * (`GrantCallContext.thrown`) throws the same again, without running the skill a second time.
 */
export async function answeredTask(
  deps: Deps,
  call: GrantCallContext | undefined,
  ids: TaskIds,
  userMessage: Message,
): Promise<Task> {
  const history = [{ ...userMessage, taskId: ids.taskId, contextId: ids.contextId }];
  if (call?.asked === undefined) {
    // app.ts authenticates every call and parses every send first; reaching here otherwise is a bug.
    return failedTask(
      ids,
      undefined,
      { code: 'server_error', description: 'the call was not authenticated' },
      history,
      deps.clock(),
    );
  }
  if (call.thrown !== undefined) throw call.thrown.error;
  const { skill, input } = call.asked;
  const result = await skill.operation.run(deps, call.caller, input);
  if (!result.ok) return failedTask(ids, skill.id, result.error, history, deps.clock());
  const drawn = call.a2ui
    ? a2uiParts(result.value, deps.clock(), { a2ui: call.a2ui, a2a: call.requestedVersion })
    : [];
  return completedTask(ids, skill.id, result.value, history, deps.clock(), drawn);
}
