import { type AuthInfo, createMcpHandler, isLegacyRequest, type Server } from '@modelcontextprotocol/server';
import { type BodySource, readBodyBytes } from '../shared/body.ts';
import type { DirectCall } from './direct-call.ts';

/**
 * MCP 2026-07-28 (no `initialize`, no session: `server/discover`, and the protocol version and
 * the client's capabilities in `_meta` on every request), served by the SDK's own entry
 * (`createMcpHandler`), which checks the envelope and the standard headers and builds one
 * server per request, bound to the revision the request names. Only requests of this generation
 * come here (`isModern`); `subscriptions/listen` is ours (listen.ts), not the SDK's.
 */
export class ModernLeg {
  readonly #handler: ReturnType<typeof createMcpHandler>;

  constructor(make: () => Server, options: { bodyLimitBytes: number }) {
    this.#handler = createMcpHandler(() => make(), {
      // Requests of the 2025 generation never reach this handler (legacy-leg.ts serves them).
      legacy: 'reject',
      // A single JSON body unless a handler sends a message before its result, which ours never
      // do: `fetch` settles once the handler has answered, so a 401/403 can still replace it.
      responseMode: 'auto',
      maxRequestBodySize: options.bodyLimitBytes,
      // The SDK's listen router would tell every stream of every grantee alike; listen.ts answers
      // listens, and one that reaches the SDK (malformed headers) is refused here, never served.
      maxSubscriptions: 0,
    });
  }

  /** `parsedBody`: the body as `routeMcp` read it; without it the SDK reads the request's own. */
  handle(request: Request, authInfo: AuthInfo, parsedBody?: unknown): Promise<Response> {
    return this.#handler.fetch(request, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
  }

  close(): Promise<void> {
    return this.#handler.close();
  }
}

/**
 * Which leg serves a POST, and what it serves. The decision is the SDK's own (`isLegacyRequest`,
 * the code `createMcpHandler` routes with), made on the body read once here, with the provider's
 * body limit, and handed to the leg as `parsedBody`: the SDK then neither clones the request nor
 * reads and parses its body a second time (bench:mcp, docs/benchmarks.md). Whatever is not a JSON
 * body within the limit goes the SDK's way untouched: a declared Content-Length over the limit
 * before anything is read, an empty or unparseable body as a fresh request holding the same
 * bytes; a body found over the limit while reading, or unreadable, is answered here as the
 * modern leg answers it (where `isLegacyRequest` sends those).
 */
export type McpRoute =
  | {
      readonly kind: 'leg';
      readonly modern: boolean;
      readonly request: Request;
      readonly parsedBody?: unknown;
    }
  | { readonly kind: 'direct'; readonly call: DirectCall }
  | { readonly kind: 'answer'; readonly response: Response };

/**
 * `direct`: whether the provider answers the parsed body itself (direct-call.ts); asked before
 * the SDK's routing, which such a call does not need.
 */
export async function routeMcp(
  request: Request,
  source: BodySource,
  bodyLimitBytes: number,
  direct: (parsedBody: unknown) => DirectCall | undefined = () => undefined,
): Promise<McpRoute> {
  const declared = source.contentLength;
  if (declared !== undefined && Number(declared) > bodyLimitBytes) return routed(request, bodyLimitBytes);
  const read = await readBodyBytes(source, bodyLimitBytes);
  if (!read.ok) {
    // The SDK's answers to these (createMcpHandler, modern path), word for word.
    return read.error.code === 'payload_too_large'
      ? answer(413, -32000, `Payload Too Large: Request body must not exceed ${bodyLimitBytes} bytes`)
      : answer(400, -32700, 'Parse error: the request body could not be read');
  }
  // Decoded as the SDK decodes a body (a lenient UTF-8 decoder: bad bytes become U+FFFD).
  const text = LENIENT_UTF8.decode(read.value);
  let parsedBody: unknown;
  try {
    parsedBody = text.length === 0 ? undefined : JSON.parse(text);
  } catch {
    parsedBody = undefined;
  }
  if (parsedBody === undefined) {
    const copy = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: read.value,
    });
    return routed(copy, bodyLimitBytes);
  }
  const call = direct(parsedBody);
  if (call !== undefined) return { kind: 'direct', call };
  const legacy = await isLegacyRequest(request, parsedBody, { maxRequestBodySize: bodyLimitBytes });
  return { kind: 'leg', modern: !legacy, request, parsedBody };
}

/** The SDK's routing on a request whose body it reads itself (from a clone). */
async function routed(request: Request, bodyLimitBytes: number): Promise<McpRoute> {
  const legacy = await isLegacyRequest(request, undefined, { maxRequestBodySize: bodyLimitBytes });
  return { kind: 'leg', modern: !legacy, request };
}

const LENIENT_UTF8 = new TextDecoder();

function answer(status: number, code: number, message: string): McpRoute {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  return {
    kind: 'answer',
    response: new Response(body, { status, headers: { 'content-type': 'application/json' } }),
  };
}
