import type { HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Deps } from '../../operations/deps.ts';

// `/metrics` in Prometheus' text format (operations/provider/metrics.ts; docs/deploy.md "What to watch").
// Open like /healthz: aggregates only (no label names a person, an app or an id), for a scraper
// on the operator's network; a deployment that publishes the provider keeps /metrics internal at
// its proxy, as it does /readyz.

export function mountMetrics(app: Hono<{ Bindings: HttpBindings }>, deps: Deps): void {
  deps.metrics.collectProcessMetrics();
  app.get('/metrics', async (c) =>
    c.body(await deps.metrics.text(), 200, {
      'Content-Type': deps.metrics.contentType,
      'Cache-Control': 'no-store',
    }),
  );
}
