import { randomUUID } from 'node:crypto';
import {
  type BaseEvent,
  EventType,
  type ToolCallArgsEvent,
  type ToolCallEndEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
} from '@ag-ui/core';
import { fail, ok, type Result } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import type { Caller } from '../../operations/callers/caller.ts';
import type { CatalogOperation } from '../../operations/catalog/contract.ts';
import { CATALOG } from '../../operations/catalog/index.ts';
import type { Deps } from '../../operations/deps.ts';
import type { DecisionCall } from '../../operations/inbox/consent-interrupts.ts';
import type { ActionRequest } from './input.ts';

// The person's actions in their inbox run (WIRE-NOTES §7, bindings/ag-ui.md "User approves /
// rejects / revokes via UI → TOOL_CALL_*"): a run's `forwardedProps.actions` names operations of
// the catalog offered to the person (those with an `agui` binding) and their arguments; each is
// run through the operation's own handler, as the HTTP API runs it, and reported as a tool call
// the provider made on the person's behalf: TOOL_CALL_START, _ARGS, _END, _RESULT.

/** The operations the person's run offers, by name (the catalog's `agui` entries). */
export const PERSON_TOOLS: ReadonlyMap<string, CatalogOperation> = new Map(
  CATALOG.filter((op) => op.agui !== undefined).map((op) => [op.name, op]),
);

/** An action checked against its operation's input schema, ready to run. */
export interface PreparedAction {
  readonly toolCallId: string;
  readonly operation: CatalogOperation;
  /** As the client sent them: what TOOL_CALL_ARGS repeats. */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly input: unknown;
}

/**
 * Checks every action before any runs: an unknown name or arguments its operation refuses fail
 * the run (RUN_ERROR, nothing applied), naming the action and what is wrong.
 */
export function prepareActions(requests: readonly ActionRequest[]): Result<PreparedAction[]> {
  const prepared: PreparedAction[] = [];
  for (const [i, request] of requests.entries()) {
    const what = `action ${i + 1} (${request.name})`;
    const operation = PERSON_TOOLS.get(request.name);
    if (operation === undefined) {
      return fail(
        'invalid_request',
        `action ${i + 1}: there is no action "${request.name}"; the actions are ${[...PERSON_TOOLS.keys()].join(', ')}`,
      );
    }
    const input = parseInput(operation.input, request.arguments, `the arguments of ${what}`);
    if (!input.ok) return input;
    prepared.push({
      toolCallId: `call_${randomUUID()}`,
      operation,
      arguments: request.arguments,
      input: input.value,
    });
  }
  return ok(prepared);
}

/** What a tool call returned, as TOOL_CALL_RESULT's content: the operation's output or its failure. */
export type ToolResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string; readonly error_description: string };

/**
 * Runs one action as the person. A refusal of the operation (not found, a conflict) is its
 * result, not the run's failure: the later actions still run, each on its own.
 */
export async function runAction(deps: Deps, caller: Caller, action: PreparedAction): Promise<ToolResult> {
  const result = await action.operation.run(deps, caller, action.input);
  return result.ok
    ? { ok: true, value: result.value }
    : { ok: false, error: result.error.code, error_description: result.error.description };
}

/** A call as the four AG-UI events: START, the arguments as one ARGS chunk, END, RESULT. */
export function toolCallEvents(
  call: { readonly toolCallId: string; readonly name: string; readonly arguments: unknown },
  result: ToolResult,
  at: Date,
): BaseEvent[] {
  const timestamp = at.getTime();
  const start: ToolCallStartEvent = {
    type: EventType.TOOL_CALL_START,
    toolCallId: call.toolCallId,
    toolCallName: call.name,
    timestamp,
  };
  const args: ToolCallArgsEvent = {
    type: EventType.TOOL_CALL_ARGS,
    toolCallId: call.toolCallId,
    delta: JSON.stringify(call.arguments),
    timestamp,
  };
  const end: ToolCallEndEvent = { type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId, timestamp };
  const done: ToolCallResultEvent = {
    type: EventType.TOOL_CALL_RESULT,
    messageId: `msg_${randomUUID()}`,
    toolCallId: call.toolCallId,
    role: 'tool',
    content: JSON.stringify(result),
    timestamp,
  };
  return [start, args, end, done];
}

/** A consent decision a resume made (operations/inbox/consent-interrupts.ts), as the tool call it was. */
export function decisionEvents(call: DecisionCall, at: Date): BaseEvent[] {
  return toolCallEvents(
    { toolCallId: `call_${randomUUID()}`, name: call.name, arguments: call.arguments },
    { ok: true, value: call.value },
    at,
  );
}
