import { BENCH_CONTEXT, CLAIM_COUNT } from './fixtures.ts';
import { post, type Target } from './harness.ts';

// The request of bench:mcp and bench:stores: `tools/call ppx_get_effective_profile` over
// Streamable HTTP (stateless POSTs), in either protocol generation, and its answer checked.
// 2025-11-25: a bare JSON-RPC request (stateless: no `initialize` first, as the SDK allows).
// 2026-07-28: no `initialize` either, but every request carries the envelope in `params._meta`
// (protocol version, client capabilities, client info) and the standard headers
// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), as test/support/mcp-client.ts#modernPost sends.

export type Generation = '2025-11-25' | '2026-07-28';
export const PROTOCOL_VERSION: Generation = '2025-11-25';
export const MODERN: Generation = '2026-07-28';
export const TOOL = 'ppx_get_effective_profile';

/** The `_meta` every 2026-07-28 request carries (test/support/mcp-client.ts#MODERN_ENVELOPE). */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

/** The request body of `generation` for a context. */
export function bodyOf(generation: Generation): (context: Record<string, unknown>) => string {
  return (context) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: TOOL,
        arguments: { context },
        ...(generation === MODERN ? { _meta: MODERN_ENVELOPE } : {}),
      },
    });
}

export const bodyFor = bodyOf(PROTOCOL_VERSION);
export const BODY = bodyFor(BENCH_CONTEXT);

/** The headers of `generation` (a bearer token when given). */
export function headersOf(generation: Generation, token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': generation,
    ...(generation === MODERN ? { 'mcp-method': 'tools/call', 'mcp-name': TOOL } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

export const headers = (token?: string) => headersOf(PROTOCOL_VERSION, token);

/**
 * One call, checked: 200, a JSON-RPC result that is not an error, `claims` claims (the 200 of the
 * fixture by default; any non-empty list when `claims` is null). The body is 2025-11-25's unless given.
 */
export async function call(
  target: Target,
  body: string = BODY,
  claims: number | null = CLAIM_COUNT,
): Promise<{ result: unknown; bytes: number; claims: number }> {
  const text = await post(target, body);
  const json = JSON.parse(text) as {
    result?: { isError?: boolean; structuredContent?: { data?: { claims?: unknown[] } } };
  };
  const got = json.result?.structuredContent?.data?.claims;
  const count = Array.isArray(got) ? got.length : -1;
  if (json.result?.isError || count <= 0 || (claims !== null && count !== claims)) {
    throw new Error(`${target.name}: expected ${claims ?? 'some'} claims: ${text.slice(0, 300)}`);
  }
  return { result: json.result, bytes: Buffer.byteLength(text), claims: count };
}
