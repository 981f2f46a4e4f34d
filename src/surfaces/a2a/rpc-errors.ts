import type { PpxFailure } from '../../model/errors.ts';

// JSON-RPC 2.0 errors of the A2A surface (WIRE-NOTES §6: `error = {code, message, data: {error:
// <ppx code>}}`). The standard codes for what JSON-RPC itself names (-32700 not JSON, -32600 not
// a request, -32601 no such method, -32602 bad params); every other PPX failure is -32000, a
// server-defined error whose `data.error` says which. A2A's own codes (-32001 task not found, …)
// are the SDK's to answer.

export interface RpcError {
  readonly jsonrpc: '2.0';
  readonly id: string | number | null;
  readonly error: {
    readonly code: number;
    readonly message: string;
    readonly data?: { readonly error: string } | readonly ErrorInfo[];
  };
}

/** google.rpc.ErrorInfo in ProtoJSON, as A2A 1.0.1 puts A2A errors' details in `error.data`. */
interface ErrorInfo {
  readonly '@type': 'type.googleapis.com/google.rpc.ErrorInfo';
  readonly reason: string;
  readonly domain: 'a2a-protocol.org';
}

export function rpcError(id: string | number | null, code: number, message: string, ppx?: string): RpcError {
  const error = ppx === undefined ? { code, message } : { code, message, data: { error: ppx } };
  return { jsonrpc: '2.0', id, error };
}

const PARAMS_CODES = new Set(['invalid_request', 'unknown_namespace', 'unknown_key']);

/** A PPX failure as a JSON-RPC error: -32602 for input the caller must fix, else -32000. */
export function rpcErrorOf(id: string | number | null, failure: PpxFailure): RpcError {
  return rpcError(id, PARAMS_CODES.has(failure.code) ? -32602 : -32000, failure.description, failure.code);
}

/**
 * A2A's VersionNotSupportedError (-32009), its details an `error.data` array holding a
 * google.rpc.ErrorInfo (A2A 1.0.1 §9.5, "Error Detail Objects"), as the SDK writes its own errors.
 */
export function versionNotSupported(id: string | number | null, message: string): RpcError {
  const info: ErrorInfo = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'VERSION_NOT_SUPPORTED',
    domain: 'a2a-protocol.org',
  };
  return { jsonrpc: '2.0', id, error: { code: -32009, message, data: [info] } };
}
