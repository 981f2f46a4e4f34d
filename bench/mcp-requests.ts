import { BENCH_CONTEXT, CLAIM_COUNT } from './fixtures.ts';
import { post, type Target } from './harness.ts';

// The request of bench:mcp and bench:stores: `tools/call ppx_get_effective_profile` over
// Streamable HTTP (stateless POSTs), and its answer checked.

export const PROTOCOL_VERSION = '2025-11-25';
export const TOOL = 'ppx_get_effective_profile';
export const bodyFor = (context: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: TOOL, arguments: { context } },
  });
export const BODY = bodyFor(BENCH_CONTEXT);

export function headers(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/** One call, checked: 200, a JSON-RPC result that is not an error, the full 200 claims. */
export async function call(target: Target): Promise<{ result: unknown; bytes: number }> {
  const text = await post(target, BODY);
  const json = JSON.parse(text) as {
    result?: { isError?: boolean; structuredContent?: { data?: { claims?: unknown[] } } };
  };
  const claims = json.result?.structuredContent?.data?.claims;
  if (json.result?.isError || !Array.isArray(claims) || claims.length !== CLAIM_COUNT) {
    throw new Error(`${target.name}: expected ${CLAIM_COUNT} claims: ${text.slice(0, 300)}`);
  }
  return { result: json.result, bytes: Buffer.byteLength(text) };
}
