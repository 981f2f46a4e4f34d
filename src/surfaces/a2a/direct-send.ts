import { randomUUID } from 'node:crypto';
import { SendMessageRequest, Task } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, type TaskStore } from '@a2a-js/sdk/server';
import type { Deps } from '../../operations/deps.ts';
import { jsonChunks } from '../shared/json-text.ts';
import { answerWithSharedHeaders } from '../shared/response-headers.ts';
import type { GrantCallContext } from './call-context.ts';
import { answeredTask } from './executor.ts';
import type { RpcCall } from './json-rpc.ts';

// A2A 1.0 `SendMessage` answered by the provider itself instead of the SDK's request handler:
// for a plain blocking send that starts a new task, the handler's whole work is fixed (make the
// task's ids, run the executor, save the task it publishes, answer `{task}`), and it spends most
// of a call on copies of the task (structuredClone at each step), an event bus, and a read of
// the task it has just saved (bench:surfaces: 6× the HTTP read; docs/benchmarks.md "Issue 27").
// This does that work once, with the executor's own code (executor.ts#answeredTask) and the
// surface's own task store, and writes the answer as the SDK's JSON-RPC handler writes it.
// Anything else (another method, a task to continue, reference tasks, a tenant, a history
// length, a non-blocking send, A2UI) goes the SDK's way. test/e2e/a2a/direct-send.test.ts holds
// both ways' answers and stored tasks to be the same.

/** The request, when `call` is a send the provider answers itself; `context` as app.ts made it. */
export function directSendOf(call: RpcCall, context: GrantCallContext): SendMessageRequest | undefined {
  if (call.method !== 'SendMessage' || context.a2ui !== undefined || context.asked === undefined)
    return undefined;
  // The SDK's JSON-RPC handler refuses a fractional id and a params member named "".
  if (typeof call.id === 'number' && !Number.isInteger(call.id)) return undefined;
  const params = call.params as Record<string, unknown> | undefined;
  if (params === undefined || Object.hasOwn(params, '') || params['tenant']) return undefined;
  const request = SendMessageRequest.fromJSON(params);
  const message = request.message;
  if (message === undefined || message.messageId === '') return undefined;
  if (message.taskId !== '' || message.referenceTaskIds.length > 0) return undefined;
  const configuration = request.configuration;
  if (configuration?.returnImmediately === true || configuration?.historyLength !== undefined)
    return undefined;
  return request;
}

const ANSWER_CLOSE = Buffer.from('}}');

let sent = 0;

/** How many sends this process has answered directly (tests tell the two ways apart with it). */
export function directSendCount(): number {
  return sent;
}

/** What a direct send came to: the answer, or the skill's exception for the SDK to answer. */
export type DirectSend = { readonly response: Response } | { readonly thrown: unknown };

/**
 * Runs the send as DefaultRequestHandler#sendMessage would: new task and context ids (the
 * message's context id when it has one), the executor's task saved, then `{task}` answered. The
 * SDK answers a failed save as a JSON-RPC error; so does this.
 */
export async function sendDirectly(
  deps: Deps,
  store: TaskStore,
  call: RpcCall,
  request: SendMessageRequest,
  context: GrantCallContext,
  headers: readonly (readonly [string, string])[],
): Promise<DirectSend> {
  sent++;
  const message = request.message!;
  const taskId = randomUUID();
  const ids = { taskId, contextId: message.contextId || randomUUID() };
  let task: Task;
  try {
    task = await answeredTask(deps, context, ids, { ...message, ...ids });
  } catch (error) {
    return { thrown: error };
  }
  let body: Uint8Array | string;
  try {
    await store.save(task, context);
    // The PPX object in the artifact is the read's own, shared: its UTF-8 is kept (json-text.ts).
    const chunks: Uint8Array[] = [
      Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":{"task":`),
    ];
    jsonChunks(Task.toJSON(task), 5, chunks);
    chunks.push(ANSWER_CLOSE);
    body = Buffer.concat(chunks);
  } catch (error) {
    const failure = JsonRpcTransportHandler.mapToJSONRPCError(error);
    body = JSON.stringify({ jsonrpc: '2.0', id: call.id, error: failure });
  }
  const plain: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [k, v] of headers) plain[k] = v;
  return { response: answerWithSharedHeaders(deps.provider.baseUrl, body, 200, plain) };
}
