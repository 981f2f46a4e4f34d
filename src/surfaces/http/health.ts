import type { HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Deps } from '../../operations/deps.ts';
import { SERVED_BASE_URL_SETTING } from '../../operations/provider/served-base-url.ts';

// Liveness and readiness, for a process supervisor or a load balancer (docs/http-api.md):
// `/healthz` answers while the process serves at all; `/readyz` only while it should be sent
// traffic: its store answers, and it is not draining after SIGTERM.

export function mountHealth(
  app: Hono<{ Bindings: HttpBindings }>,
  deps: Deps,
  draining: () => boolean,
): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const headers = { 'Cache-Control': 'no-store' };
    if (draining()) return c.json({ status: 'draining' }, 503, headers);
    try {
      await deps.store.getSetting(SERVED_BASE_URL_SETTING);
    } catch {
      return c.json({ status: 'unavailable', reason: 'the store does not answer' }, 503, headers);
    }
    return c.json({ status: 'ready' }, 200, headers);
  });
}
