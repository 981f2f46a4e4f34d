import { type RpcError, rpcError } from './rpc-errors.ts';

// The JSON-RPC 2.0 calls /a2a takes: their shape, and which method names A2A 1.0 and 0.3 give them.

export const V1_METHODS: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'GetExtendedAgentCard',
]);
export const V03_METHODS: ReadonlySet<string> = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
]);
/** The methods answered with a stream. */
export const STREAMS: ReadonlySet<string> = new Set([
  'SendStreamingMessage',
  'SubscribeToTask',
  'message/stream',
  'tasks/resubscribe',
]);
/** The methods whose params carry a message naming a skill. */
export const SENDS: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'message/send',
  'message/stream',
]);

export interface RpcCall {
  readonly id: string | number | null;
  readonly method: string;
  readonly params: unknown;
}

/** A JSON-RPC request's id, method and params, or the error that answers it. */
export function jsonRpcShape(body: unknown): { error: RpcError } | { call: RpcCall } {
  if (typeof body !== 'object' || body === null)
    return { error: rpcError(null, -32600, 'a JSON-RPC request is an object') };
  const r = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? r.id : null;
  if (r.jsonrpc !== '2.0') return { error: rpcError(id, -32600, 'jsonrpc must be "2.0"') };
  // JSON-RPC 2.0 §4: an id is a string, a number or null. The SDK echoes whatever it is given,
  // and an object nested deep enough cannot be written back at all.
  if (r.id !== undefined && r.id !== null && typeof r.id !== 'string' && typeof r.id !== 'number') {
    return { error: rpcError(null, -32600, 'id must be a string, a number or null') };
  }
  if (typeof r.method !== 'string') return { error: rpcError(id, -32600, 'method must be a string') };
  if (
    r.params !== undefined &&
    (typeof r.params !== 'object' || r.params === null || Array.isArray(r.params))
  ) {
    return { error: rpcError(id, -32602, 'params must be an object') };
  }
  return { call: { id, method: r.method, params: r.params } };
}
