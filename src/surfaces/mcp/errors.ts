import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PpxFailure } from '../../model/errors.ts';
import { statusOf } from '../../model/errors.ts';

// The one place a PPX failure becomes an MCP answer (STYLE §4, WIRE-NOTES §5). For a
// single-grant token, token and scope failures are answered by HTTP itself (401/403 with a
// Bearer challenge), so OAuth-aware clients can re-authorize or step up; everything else is a
// tool result with `isError: true` and `structuredContent.error = {code, message}`.

/** A failure the HTTP layer answers in place of the JSON-RPC result. */
export interface TransportFailure {
  readonly status: 401 | 403;
  readonly failure: PpxFailure;
  /** The RFC 6750 `error` of the Bearer challenge, when one is sent. */
  readonly bearerError?: 'invalid_token' | 'insufficient_scope';
}

export type McpAnswer =
  | { readonly kind: 'transport'; readonly transport: TransportFailure }
  | { readonly kind: 'tool'; readonly result: CallToolResult };

/** WIRE-NOTES §5, single-grant rows. (Package tokens: isError for scope rows, next slice.) */
export function answerFailure(failure: PpxFailure): McpAnswer {
  const status = statusOf(failure.code);
  if (status === 401) {
    return { kind: 'transport', transport: { status: 401, failure, bearerError: 'invalid_token' } };
  }
  switch (failure.code) {
    case 'insufficient_scope':
      return { kind: 'transport', transport: { status: 403, failure, bearerError: 'insufficient_scope' } };
    case 'cross_domain_denied':
    case 'writeback_forbidden':
      return { kind: 'transport', transport: { status: 403, failure } };
    default:
      return { kind: 'tool', result: toolError(failure) };
  }
}

export function toolError(failure: PpxFailure): CallToolResult {
  const error = {
    code: failure.code,
    message: wireText(failure.description),
    ...(failure.grantId !== undefined ? { grant_id: failure.grantId } : {}),
  };
  return {
    isError: true,
    structuredContent: { error },
    content: [{ type: 'text', text: `${failure.code}: ${error.message}` }],
  };
}

export function toolSuccess(data: unknown): CallToolResult {
  return { structuredContent: { data }, content: [{ type: 'text', text: JSON.stringify(data) }] };
}

/**
 * Some MCP clients start re-authorization when an error text says "401", "unauthorized" or
 * "forbidden" (WIRE-NOTES §5); texts shown to them avoid those words.
 */
export function wireText(text: string): string {
  return text
    .replace(/\b401\b/g, 'refused')
    .replace(/unauthori[sz]ed/gi, 'not allowed')
    .replace(/forbidden/gi, 'not allowed');
}
