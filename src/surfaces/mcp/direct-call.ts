import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { TOOLS_BY_NAME } from './tools.ts';

// Which POSTs to /mcp the provider answers itself (direct-answer.ts) instead of handing them to
// the SDK's transport and `Server` (legacy-leg.ts, modern-leg.ts): a lone `tools/call` of one of
// our tools, in either generation, written the plain way every SDK client writes it. For exactly
// these the SDK's whole work is fixed: check the headers and the message, dispatch to our
// handler, and write `{result, jsonrpc, id}` (bench:surfaces measured that work at 2–3× the
// HTTP read itself; docs/benchmarks.md "Issue 27"). Anything else, down to a `_meta` with a
// progress token, an extra member or a header the SDK would trim, goes the SDK's way: the rules
// here only ever leave out what the SDK would also accept, never take in what it would refuse.
// test/e2e/mcp/direct-calls.test.ts holds both ways' answers to be the same, byte for byte.

/** The revision of the 2026-07-28 generation (the only one with a per-request envelope yet). */
const MODERN_REVISION = '2026-07-28';

/** A call answered directly: its generation, JSON-RPC id, tool and arguments. */
export interface DirectCall {
  readonly modern: boolean;
  readonly id: string | number;
  readonly name: string;
  readonly arguments: Record<string, unknown> | undefined;
}

/** The request's headers the SDK reads (undefined when absent), as sent. */
export interface CallHeaders {
  readonly accept: string | undefined;
  readonly contentType: string | undefined;
  readonly protocolVersion: string | undefined;
  readonly mcpMethod: string | undefined;
  readonly mcpName: string | undefined;
}

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const LEGACY_PARAMS = new Set(['name', 'arguments']);
const MODERN_PARAMS = new Set(['name', 'arguments', '_meta']);
/** The envelope every 2026-07-28 request carries; anything more (a log level, a trace) goes to the SDK. */
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
]);
/** The versions the SDK's 2025 transport accepts in MCP-Protocol-Version (its default). */
const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** The call, when `body` (the parsed JSON of a POST) is one the provider answers itself. */
export function directCallOf(headers: CallHeaders, body: unknown): DirectCall | undefined {
  // Both generations' entries answer any other Content-Type 415.
  if (!isJsonContentType(headers.contentType)) return undefined;
  // The SDK parses a message with a strict schema: these members, an id that is a string or an integer.
  if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS, 4)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call') return undefined;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  if (!isPlainObject(params)) return undefined;
  const { name, arguments: args } = params;
  // An unknown tool is the SDK's to refuse, in its words.
  if (typeof name !== 'string' || !TOOLS_BY_NAME.has(name)) return undefined;
  // The SDK copies `arguments` member by member, and a member named `__proto__` would not survive it.
  if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, '__proto__'))) return undefined;
  const call = { id, name, arguments: args };
  if (!('_meta' in params)) return legacyCall(headers, params, call);
  return modernCall(headers, body, params, call);
}

/** A 2025 call (no envelope): what WebStandardStreamableHTTPServerTransport checks first. */
function legacyCall(
  headers: CallHeaders,
  params: Record<string, unknown>,
  call: Omit<DirectCall, 'modern'>,
): DirectCall | undefined {
  if (!onlyKeys(params, LEGACY_PARAMS, 1)) return undefined;
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const version = headers.protocolVersion;
  if (version !== undefined && !LEGACY_VERSIONS.includes(version)) return undefined;
  return { modern: false, ...call };
}

/**
 * A 2026-07-28 call: the envelope alone in `_meta`, naming this revision, and the standard headers
 * saying exactly what the body says. The envelope itself is checked by the SDK's own classifier,
 * the code its entry runs on every request (validEnvelope).
 */
function modernCall(
  headers: CallHeaders,
  body: Record<string, unknown>,
  params: Record<string, unknown>,
  call: Omit<DirectCall, 'modern'>,
): DirectCall | undefined {
  if (!onlyKeys(params, MODERN_PARAMS, 2)) return undefined;
  const meta = params['_meta'];
  if (!isPlainObject(meta) || !onlyKeys(meta, ENVELOPE_KEYS, 1)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION) return undefined;
  if (headers.protocolVersion !== MODERN_REVISION) return undefined;
  if (headers.mcpMethod !== 'tools/call' || headers.mcpName !== call.name) return undefined;
  return validEnvelope(headers, body, meta) ? { modern: true, ...call } : undefined;
}

/** The SDK classifier's verdicts on the envelopes seen lately, by their JSON. */
const ENVELOPES = new Map<string, boolean>();
const ENVELOPES_MAX = 64;
/**
 * A longer envelope is classified each time, never kept: a client's info and capabilities are a
 * few hundred bytes, and a caller could otherwise park 64 envelopes as large as a body may be.
 */
const ENVELOPE_KEPT_MAX_CHARS = 4096;

/**
 * Whether the SDK's classifier routes the call to its modern path as a request of this revision.
 * For a call that passed the checks above, its verdict turns on the envelope alone: the method,
 * the version and the headers are fixed, and the classifier does not read the arguments. An
 * agent sends the same envelope on every call, so the verdict is kept by the envelope's JSON
 * (the classifier validates it with zod schemas each time; bench:surfaces).
 */
function validEnvelope(headers: CallHeaders, body: Record<string, unknown>, meta: object): boolean {
  const key = JSON.stringify(meta);
  const known = ENVELOPES.get(key);
  if (known !== undefined) return known;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.mcpMethod,
    mcpNameHeader: headers.mcpName,
    body,
  });
  const valid =
    outcome.kind === 'modern' &&
    outcome.messageKind === 'request' &&
    outcome.classification.revision === MODERN_REVISION;
  if (key.length > ENVELOPE_KEPT_MAX_CHARS) return valid;
  if (ENVELOPES.size >= ENVELOPES_MAX) ENVELOPES.clear();
  ENVELOPES.set(key, valid);
  return valid;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value`'s own keys are all in `allowed`, and at least `least` of them. */
function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>, least: number): boolean {
  let n = 0;
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) return false;
    n++;
  }
  return n >= least;
}
