import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PpxFailure } from '../../model/errors.ts';
import { statusOf } from '../../model/errors.ts';
import { childId } from '../../operations/child-ids.ts';
import { jsonText } from '../shared/json-text.ts';

// The one place a PPX failure becomes an MCP answer (STYLE §4, WIRE-NOTES §5). For a
// single-grant token, token and scope failures are answered by HTTP itself (401/403 with a
// Bearer challenge), so OAuth-aware clients can re-authorize or step up. For a package token a
// named child's token status is never an HTTP status (read profile §3): an inactive child is
// `package_child_inactive`, scope and cross-domain refusals are `isError` results with their
// code. A refused write-back is 403 `writeback_forbidden` for both kinds of token: the table of
// WIRE-NOTES §5 makes no package exception for it, and it carries no Bearer challenge, so no
// client takes it for a reason to re-authorize. Everything else is a tool result with
// `isError: true` and `structuredContent.error`.

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

/** `structuredContent.error` (and a fan-out entry's `error`). */
export interface ToolErrorObject {
  readonly code: string;
  readonly message: string;
  readonly grant_id?: string;
}

export type TokenKind = 'grant' | 'package';

/** WIRE-NOTES §5: the single-grant rows, and the package rows. */
export function answerFailure(failure: PpxFailure, token: TokenKind = 'grant'): McpAnswer {
  if (failure.code === 'writeback_forbidden')
    return { kind: 'transport', transport: { status: 403, failure } };
  if (token === 'package') return { kind: 'tool', result: toolError(failure, token) };
  const status = statusOf(failure.code);
  if (status === 401) {
    return { kind: 'transport', transport: { status: 401, failure, bearerError: 'invalid_token' } };
  }
  switch (failure.code) {
    case 'insufficient_scope':
      return { kind: 'transport', transport: { status: 403, failure, bearerError: 'insufficient_scope' } };
    case 'cross_domain_denied':
      return { kind: 'transport', transport: { status: 403, failure } };
    default:
      return { kind: 'tool', result: toolError(failure, token) };
  }
}

/** The read profile's text for an ended child (named by its child id): it must explain itself to a model. */
function inactiveChildText(grantId: string): string {
  return `Access to grant ${childId(grantId)} has ended. Do not retry this call. Ask the owner if this access is needed again.`;
}

/** The error object of a failure; a package child's token-status failure is `package_child_inactive`. */
export function errorObject(failure: PpxFailure, token: TokenKind = 'grant'): ToolErrorObject {
  if (token === 'package' && statusOf(failure.code) === 401 && failure.grantId !== undefined) {
    return {
      code: 'package_child_inactive',
      message: inactiveChildText(failure.grantId),
      grant_id: childId(failure.grantId),
    };
  }
  return {
    code: failure.code,
    message: wireText(failure.description),
    ...(failure.grantId !== undefined ? { grant_id: childId(failure.grantId) } : {}),
  };
}

export function toolError(failure: PpxFailure, token: TokenKind = 'grant'): CallToolResult {
  const error = errorObject(failure, token);
  // The code in words: a client shows the text to a model, and must not see a trigger word in it.
  const text =
    error.code === 'package_child_inactive'
      ? error.message
      : `${wireText(error.code.replaceAll('_', ' '))}: ${error.message}`;
  return { isError: true, structuredContent: { error }, content: [{ type: 'text', text }] };
}

/** The text copy is the JSON of `data`, its shared parts serialized once (surfaces/shared/json-text.ts). */
export function toolSuccess(data: unknown): CallToolResult {
  return { structuredContent: { data }, content: [{ type: 'text', text: jsonText(data) }] };
}

/** A fan-out entry: one child's data or error, labeled with its grant id. */
export type FanOutEntry =
  | { readonly grant_id: string; readonly data: unknown }
  | { readonly grant_id: string; readonly error: ToolErrorObject };

/** The fan-out envelope (read profile §3): `isError` only when every entry failed. */
export function fanOutResult(results: readonly FanOutEntry[]): CallToolResult {
  const failed = results.filter((r) => 'error' in r);
  const texts = failed.map((r) => ('error' in r ? `${r.grant_id}: ${r.error.message}` : ''));
  // {results} → the list → an entry → its data → data's members (the shared arrays).
  const content = [{ type: 'text' as const, text: jsonText({ results }, 4) }];
  if (failed.length === results.length) {
    return {
      isError: true,
      structuredContent: { results },
      content: [{ type: 'text', text: texts.join('\n') }, ...content],
    };
  }
  return { isError: false, structuredContent: { results }, content };
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
