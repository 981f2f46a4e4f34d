import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../../src/server.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// /readyz fails when the provider should not be sent traffic (docs/http-api.md): while it drains
// after SIGTERM, and when its store does not answer. /healthz answers as long as the process does.

describe('/readyz', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const readyz = async (app: ReturnType<typeof createApp>) => {
    const r = await app.request('/readyz');
    return { status: r.status, body: await r.json(), cache: r.headers.get('cache-control') };
  };

  it('answers 503 "draining" while the server drains, and /healthz still 200', async () => {
    const app = createApp(p.deps, { bodyLimitBytes: 1024, log: () => undefined, draining: () => true });
    assert.deepEqual(await readyz(app), { status: 503, body: { status: 'draining' }, cache: 'no-store' });
    assert.equal((await app.request('/healthz')).status, 200);
  });

  it('answers 503 "unavailable" when the store does not answer', async () => {
    const store = {
      ...p.deps.store,
      getSetting: async () => {
        throw new Error('database is locked');
      },
    };
    const app = createApp({ ...p.deps, store }, { bodyLimitBytes: 1024, log: () => undefined });
    const r = await readyz(app);
    assert.equal(r.status, 503);
    assert.deepEqual(r.body, { status: 'unavailable', reason: 'the store does not answer' });
    assert.ok(!JSON.stringify(r.body).includes('locked'), 'the store error stays inside');
  });

  it('answers 200 "ready" otherwise', async () => {
    const app = createApp(p.deps, { bodyLimitBytes: 1024, log: () => undefined });
    assert.deepEqual(await readyz(app), { status: 200, body: { status: 'ready' }, cache: 'no-store' });
  });
});
