import type { Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { a2uiParts } from './a2ui-parts.ts';
import { askedOf } from './skills.ts';
import { completedTask, failedTask } from './tasks.ts';

// The preference agent's work for one message: the skill it names, run as the grant the request
// was authenticated with (put in the call's context by app.ts), answered as one completed or
// failed task. PPX operations are short: a task is done when its first event is published.

/** Where app.ts leaves the request's caller in the SDK's per-call state. */
export const CALLER_KEY = 'ppx.caller';
/** Set (true) by app.ts when the request asked for the A2UI extension (a2ui-parts.ts). */
export const A2UI_KEY = 'ppx.a2ui';

export class PreferenceAgentExecutor implements AgentExecutor {
  readonly #deps: Deps;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const deps = this.#deps;
    const ids = { taskId: request.taskId, contextId: request.contextId };
    const history = [{ ...request.userMessage, taskId: request.taskId, contextId: request.contextId }];
    const caller = request.context.state.get(CALLER_KEY) as GrantCaller | undefined;
    const asked = askedOf(request.userMessage);
    let task: Task;
    if (caller === undefined) {
      // app.ts authenticates every call first; reaching here without a caller is a bug.
      task = failedTask(
        ids,
        undefined,
        { code: 'server_error', description: 'the call was not authenticated' },
        history,
        deps.clock(),
      );
    } else if (!asked.ok) {
      task = failedTask(ids, undefined, asked.error, history, deps.clock());
    } else {
      const { skill, input } = asked.value;
      const result = await skill.operation.run(deps, caller, input);
      const drawn = result.ok && request.context.state.get(A2UI_KEY) === true;
      task = result.ok
        ? completedTask(
            ids,
            skill.id,
            result.value,
            history,
            deps.clock(),
            drawn ? a2uiParts(result.value, deps.clock()) : [],
          )
        : failedTask(ids, skill.id, result.error, history, deps.clock());
    }
    bus.publish(AgentEvent.task(task));
    bus.finished();
  }

  /** Nothing runs long enough to cancel: a task is finished by the time anyone can name it. */
  async cancelTask(): Promise<void> {}
}
