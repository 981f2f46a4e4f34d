import { a2aBodyFor, a2aHeaders } from './a2a-requests.ts';
import { BENCH_PATH } from './fixtures.ts';
import type { Target } from './harness.ts';
import { bodyOf, headersOf, MODERN, PROTOCOL_VERSION } from './mcp-requests.ts';

// The same read on each surface of one provider child (bench/provider-server.ts --audience all,
// whose ready line carries a token per resource): where it is POSTed, with which headers and which
// body. bench:surfaces loads them side by side; bench/ab.ts --surface loads one of them on two builds.

export const SURFACE_NAMES = ['http', 'mcp-2025', 'mcp-2026', 'a2a'] as const;
export type SurfaceName = (typeof SURFACE_NAMES)[number];

/** The HTTP read's body for a context. */
export const httpBodyFor = (context: Record<string, unknown>) => JSON.stringify({ context });

/** The target of `surface` on the child whose ready line is `info`; named `name`. */
export function surfaceTarget(
  surface: SurfaceName,
  info: Record<string, string>,
  pid: number | undefined,
  name: string = surface,
): Target {
  const base = info['url']!;
  if (surface === 'http') {
    return {
      name,
      url: base + BENCH_PATH,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${info['token']}` },
      bodyFor: httpBodyFor,
      pid,
    };
  }
  if (surface === 'a2a') {
    return { name, url: `${base}/a2a`, headers: a2aHeaders(info['a2aToken']), bodyFor: a2aBodyFor, pid };
  }
  const generation = surface === 'mcp-2026' ? MODERN : PROTOCOL_VERSION;
  return {
    name,
    url: `${base}/mcp`,
    headers: headersOf(generation, info['mcpToken']),
    bodyFor: bodyOf(generation),
    pid,
  };
}
