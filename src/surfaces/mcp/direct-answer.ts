import { type CallToolResult, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { Deps } from '../../operations/deps.ts';
import { jsonChunks } from '../shared/json-text.ts';
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
  let body: Uint8Array | string;
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

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const RESULT_OPEN = utf8('{"result":{"content":[');
const TEXT_OPEN = utf8('{"type":"text","text":');
const TEXT_CLOSE = utf8('}');
const COMMA = utf8(',');
const STRUCTURED = utf8('],"structuredContent":');
const CONTENT_CLOSE = utf8(']');
const MODERN_STAMP = utf8(
  `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO })}`,
);

/**
 * `{result, jsonrpc, id}` as the SDK writes it for our handler's result, in UTF-8: made of the
 * bytes of its parts, the shared document's and its quoted text copy's kept from one answer to
 * the next (a 22 KB answer is otherwise encoded anew each time).
 */
function resultBody(call: DirectCall, result: CallToolResult): Uint8Array {
  const chunks: Uint8Array[] = [RESULT_OPEN];
  result.content.forEach((block, i) => {
    if (i > 0) chunks.push(COMMA);
    if (block.type === 'text' && Object.keys(block).length === 2) {
      chunks.push(TEXT_OPEN, quoted(block.text), TEXT_CLOSE);
    } else chunks.push(utf8(JSON.stringify(block)));
  });
  if (result.structuredContent !== undefined) {
    // {data} / {error} / {results: [{grant_id, data | error}]}: the shared documents are found below.
    chunks.push(STRUCTURED);
    jsonChunks(result.structuredContent, 4, chunks);
  } else chunks.push(CONTENT_CLOSE);
  if (result.isError !== undefined) chunks.push(utf8(`,"isError":${result.isError}`));
  if (call.modern) chunks.push(MODERN_STAMP);
  chunks.push(utf8(`},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`));
  return Buffer.concat(chunks);
}

/**
 * The SDK's answer to a handler that threw (Protocol#_onrequest): the error's own code when it
 * has an integer one (-32002 written as -32602, as both generations' codecs do), else -32603,
 * and its message. Sent with HTTP 200 in both generations: a handler runs after the dispatch.
 */
function errorBody(call: DirectCall, thrown: unknown): string {
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

/** Texts quoted lately, in UTF-8, by text: a shared document's text copy is the same string every time. */
const QUOTED = new Map<string, Uint8Array>();
const QUOTED_MAX = 16;
/** Below this a text is quoted again each time: cheaper than keeping it. */
const QUOTED_MIN_LENGTH = 1024;

function quoted(text: string): Uint8Array {
  if (text.length < QUOTED_MIN_LENGTH) return utf8(JSON.stringify(text));
  let made = QUOTED.get(text);
  if (made === undefined) {
    made = utf8(JSON.stringify(text));
    if (QUOTED.size >= QUOTED_MAX) QUOTED.delete(QUOTED.keys().next().value as string);
    QUOTED.set(text, made);
  }
  return made;
}
