import type { Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { Deps } from '../../operations/deps.ts';
import { a2uiParts } from './a2ui-parts.ts';
import { grantContextOf } from './call-context.ts';
import { completedTask, failedTask } from './tasks.ts';

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
    const deps = this.#deps;
    const ids = { taskId: request.taskId, contextId: request.contextId };
    const history = [{ ...request.userMessage, taskId: request.taskId, contextId: request.contextId }];
    const call = grantContextOf(request.context);
    let task: Task;
    if (call?.asked === undefined) {
      // app.ts authenticates every call and parses every send first; reaching here otherwise is a bug.
      task = failedTask(
        ids,
        undefined,
        { code: 'server_error', description: 'the call was not authenticated' },
        history,
        deps.clock(),
      );
    } else {
      const { skill, input } = call.asked;
      const result = await skill.operation.run(deps, call.caller, input);
      task = result.ok
        ? completedTask(
            ids,
            skill.id,
            result.value,
            history,
            deps.clock(),
            call.a2ui
              ? a2uiParts(result.value, deps.clock(), { a2ui: call.a2ui, a2a: call.requestedVersion })
              : [],
          )
        : failedTask(ids, skill.id, result.error, history, deps.clock());
    }
    bus.publish(AgentEvent.task(task));
    bus.finished();
  }

  /** Nothing runs long enough to cancel: a task is finished by the time anyone can name it. */
  async cancelTask(): Promise<void> {}
}
