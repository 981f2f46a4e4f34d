import type { MiddlewareHandler } from 'hono';
import type { Metrics } from '../../operations/provider/metrics.ts';

// Every request counted and timed (issue 14, item 4), by surface, route pattern (Hono's matched
// route, `/v1/profile/claims/:claim_id`: never the path itself, which would carry ids and grow
// without bound), method and status. A stream is timed to its response head.

/** Which surface a path belongs to (what an operator groups by). */
function surfaceOf(path: string): string {
  if (path === '/mcp' || path.startsWith('/mcp/') || path === '/.well-known/mcp.json') return 'mcp';
  if (path === '/a2a' || path === '/.well-known/agent-card.json') return 'a2a';
  if (path.startsWith('/v1/agui/')) return 'agui';
  if (path.startsWith('/oauth/') || path.startsWith('/.well-known/oauth-')) return 'oauth';
  if (path.startsWith('/v1/') || path === '/openapi.json' || path.startsWith('/.well-known/')) return 'http';
  if (path === '/healthz' || path === '/readyz' || path === '/metrics') return 'ops';
  return 'web';
}

export function requestMetrics(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const path = c.req.path;
    // An unmatched path has the catch-all as its route: named as such, never by its path.
    const matched = c.req.routePath;
    const route = matched === '/*' || matched === '*' || matched === '' ? 'unmatched' : matched;
    const surface = surfaceOf(path);
    const seconds = (performance.now() - start) / 1000;
    metrics.requests.series(surface, route, c.req.method, String(c.res.status)).inc();
    metrics.requestSeconds.series(surface, route).observe(seconds);
  };
}
