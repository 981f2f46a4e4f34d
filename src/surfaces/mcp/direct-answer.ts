import { type CallToolResult, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { Deps } from '../../operations/deps.ts';
import { jsonText } from '../shared/json-text.ts';
import { answerWithSharedHeaders } from '../shared/response-headers.ts';
import type { DirectCall } from './direct-call.ts';
import type { McpExchange } from './exchange.ts';
import { callTool, SERVER_INFO } from './server.ts';

// The answer to a call direct-call.ts let through, written as the SDK writes it: the result our
// handler returns, as the SDK's result schema orders it (content, structuredContent, isError) and,
// in 2026-07-28, stamped as the SDK stamps every result (`resultType`, then `_meta` with the
// server's identity), in `{result, jsonrpc, id}`; a handler's exception as the SDK's JSON-RPC
// error. What differs is the cost: the document's JSON is the one kept beside it
// (shared/json-text.ts), its text copy quoted once, and the answer goes out without a web
// Response built around a stream.

let answered = 0;

/** How many calls this process has answered directly (tests tell the two ways apart with it). */
export function directAnswerCount(): number {
  return answered;
}

/** The JSON-RPC answer to `call`, with the headers the surface adds (rate limits, no-store). */
export async function answerDirectly(
  deps: Deps,
  exchange: McpExchange,
  call: DirectCall,
  headers: readonly (readonly [string, string])[],
): Promise<Response> {
  answered++;
  let body: string;
  try {
    body = resultBody(call, await callTool(deps, exchange, call.name, call.arguments));
  } catch (e) {
    // A refusal (errors.ts#httpLevel) is answered by the HTTP layer, which drops this body.
    body = errorBody(call, e);
  }
  const plain: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [k, v] of headers) plain[k] = v;
  return answerWithSharedHeaders(deps.provider.baseUrl, body, 200, plain);
}

const SERVER_INFO_META = JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO });

/** `{result, jsonrpc, id}` as the SDK writes it for our handler's result. */
export function resultBody(call: DirectCall, result: CallToolResult): string {
  let out = `{"result":{"content":${contentText(result.content)}`;
  if (result.structuredContent !== undefined) {
    // {data} / {error} / {results: [{grant_id, data | error}]}: the shared documents are found below.
    out += `,"structuredContent":${jsonText(result.structuredContent, 4)}`;
  }
  if (result.isError !== undefined) out += `,"isError":${result.isError}`;
  if (call.modern) out += `,"resultType":"complete","_meta":${SERVER_INFO_META}`;
  return `${out}},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
}

/**
 * The SDK's answer to a handler that threw (Protocol#_onrequest): the error's own code when it
 * has an integer one (-32002 written as -32602, as both generations' codecs do), else -32603,
 * and its message. Sent with HTTP 200 in both generations: a handler runs after the dispatch.
 */
export function errorBody(call: DirectCall, thrown: unknown): string {
  const e = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  const own = Number.isSafeInteger(e.code) ? (e.code as number) : -32603;
  const error = {
    code: own === -32002 ? -32602 : own,
    message: e.message ?? 'Internal error',
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
  return JSON.stringify({ jsonrpc: '2.0', id: call.id, error });
}

function contentText(content: CallToolResult['content']): string {
  const parts = content.map((block) =>
    block.type === 'text' && Object.keys(block).length === 2
      ? `{"type":"text","text":${quoted(block.text)}}`
      : JSON.stringify(block),
  );
  return `[${parts.join(',')}]`;
}

/** Texts quoted lately, by text: a shared document's text copy is the same string every time. */
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 16;
/** Below this a text is quoted again each time: cheaper than keeping it. */
const QUOTED_MIN_LENGTH = 1024;

function quoted(text: string): string {
  if (text.length < QUOTED_MIN_LENGTH) return JSON.stringify(text);
  let made = QUOTED.get(text);
  if (made === undefined) {
    made = JSON.stringify(text);
    if (QUOTED.size >= QUOTED_MAX) QUOTED.delete(QUOTED.keys().next().value as string);
    QUOTED.set(text, made);
  }
  return made;
}
