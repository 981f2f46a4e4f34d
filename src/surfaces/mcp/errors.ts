import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { PpxFailure } from '../../model/errors.ts';
import { statusOf } from '../../model/errors.ts';
import { childId } from '../../operations/child-ids.ts';
import { withoutTriggerWords } from '../shared/challenge.ts';
import { jsonText } from '../shared/json-text.ts';

// The one place a PPX failure becomes an MCP answer (STYLE §4, WIRE-NOTES §5). For a
// single-grant token, token and scope failures are answered by HTTP itself (401/403 with a
// Bearer challenge), so OAuth-aware clients can re-authorize or step up. For a package token a
// named child's token status is never an HTTP status (read profile §3): an inactive child is
// `package_child_inactive`, scope and cross-domain refusals are `isError` results with their
// code. A refused write-back is 403 `writeback_forbidden` for both kinds of token: the table of
// WIRE-NOTES §5 makes no package exception for it, and it carries no Bearer challenge, so no
// client takes it for a reason to re-authorize. Everything else is a tool result with
// `isError: true` and `structuredContent.error`. Every grant id MCP shows is a child id
// (`shownFailure`, operations/child-ids.ts): the read profile's tools name grants so.

/** How MCP answers a failure: at the HTTP level (the front door's refusal), or as a tool result. */
export type McpAnswer =
  | { readonly kind: 'transport'; readonly failure: PpxFailure }
  | { readonly kind: 'tool'; readonly result: CallToolResult };

/**
 * A failure answered at the HTTP level (401/403, WIRE-NOTES §5). An SDK handler can answer only
 * with a JSON-RPC message, so the handler hands the failure to the leg serving its request
 * (`McpExchange.refuse`, exchange.ts), which returns it as a value in place of the answer, and
 * throws this error to end the handler. The error itself never reaches the wire.
 */
export function httpLevel(
  exchange: { refuse(failure: PpxFailure): void },
  failure: PpxFailure,
): ProtocolError {
  exchange.refuse(failure);
  return new ProtocolError(ProtocolErrorCode.InvalidRequest, withoutTriggerWords(failure.description));
}

/** A failure as MCP shows it: its grant named by its child id (WIRE-NOTES §4). */
function shownFailure(failure: PpxFailure): PpxFailure {
  return failure.grantId === undefined ? failure : { ...failure, grantId: childId(failure.grantId) };
}

/** `structuredContent.error` (and a fan-out entry's `error`). */
export interface ToolErrorObject {
  readonly code: string;
  readonly message: string;
  readonly grant_id?: string;
}

export type TokenKind = 'grant' | 'package';

/** WIRE-NOTES §5: the single-grant rows, and the package rows. */
export function answerFailure(failure: PpxFailure, token: TokenKind = 'grant'): McpAnswer {
  if (failure.code === 'writeback_forbidden') return { kind: 'transport', failure };
  if (token === 'package') return { kind: 'tool', result: toolError(failure, token) };
  const atHttpLevel =
    statusOf(failure.code) === 401 ||
    failure.code === 'insufficient_scope' ||
    failure.code === 'cross_domain_denied';
  return atHttpLevel ? { kind: 'transport', failure } : { kind: 'tool', result: toolError(failure, token) };
}

/** The OAuth-shaped body of an HTTP-level refusal (as the SDK's own bearer middleware answers). */
export function refusalBody(failure: PpxFailure): Record<string, string> {
  const shown = shownFailure(failure);
  return {
    error: shown.code,
    error_description: withoutTriggerWords(shown.description),
    ...(shown.grantId !== undefined ? { grant_id: shown.grantId } : {}),
  };
}

/** The read profile's text for an ended child (named by its child id): it must explain itself to a model. */
function inactiveChildText(childGrantId: string): string {
  return `Access to grant ${childGrantId} has ended. Do not retry this call. Ask the owner if this access is needed again.`;
}

/** The error object of a failure; a package child's token-status failure is `package_child_inactive`. */
export function errorObject(failure: PpxFailure, token: TokenKind = 'grant'): ToolErrorObject {
  const shown = shownFailure(failure);
  if (token === 'package' && statusOf(shown.code) === 401 && shown.grantId !== undefined) {
    return {
      code: 'package_child_inactive',
      message: inactiveChildText(shown.grantId),
      grant_id: shown.grantId,
    };
  }
  return {
    code: shown.code,
    message: withoutTriggerWords(shown.description),
    ...(shown.grantId !== undefined ? { grant_id: shown.grantId } : {}),
  };
}

export function toolError(failure: PpxFailure, token: TokenKind = 'grant'): CallToolResult {
  const error = errorObject(failure, token);
  // The code in words: a client shows the text to a model, and must not see a trigger word in it.
  const text =
    error.code === 'package_child_inactive'
      ? error.message
      : `${withoutTriggerWords(error.code.replaceAll('_', ' '))}: ${error.message}`;
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
