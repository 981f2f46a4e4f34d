import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testClock } from '../../support/clock.ts';
import { signedInCookie } from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// CORS (src/surfaces/shared/cors.ts, docs/http-api.md "Browsers on another origin"): an app's page
// on another origin may discover the provider and call the API with its tokens, so the discovery
// documents and every /v1 route answer any origin with `*`, never with credentials. A preflight is
// answered before the front door: it spends no budget and is no refused call. The person's
// session routes send no CORS headers at all.

const ORIGIN = 'https://app.example';
const WINDOW_MS = 60_000;
const LIMIT = 3;

/** A browser's preflight for `method` with `headers` (the names, lower case, as Chromium sends them). */
function preflight(p: TestProvider, path: string, method: string, headers: string) {
  return fetch(p.url + path, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': headers,
    },
  });
}

/** The comma-separated list of a header, lower case. */
function listOf(h: Headers, name: string): string[] {
  return (h.get(name) ?? '').split(',').map((s) => s.trim().toLowerCase());
}

/** The sum of a Prometheus counter's samples with these labels (0 when none). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

describe('CORS: discovery and the HTTP API from another origin', () => {
  let p: TestProvider;
  const time = testClock();
  before(async () => {
    p = await startTestProvider({ rateLimit: LIMIT, clock: time.clock });
  });
  after(() => p.close());

  const routes: readonly (readonly [string, string, string])[] = [
    ['/.well-known/ppx-card.json', 'GET', 'accept'],
    ['/v1/profile/summary', 'GET', 'authorization, dpop'],
    ['/v1/profile/effective', 'POST', 'authorization, content-type, dpop'],
    ['/v1/profile/query', 'POST', 'authorization, content-type'],
    ['/v1/profile/propose-updates', 'POST', 'authorization, content-type, dpop'],
    ['/v1/profile/claims/ppx%3Aclaim%3Aany', 'DELETE', 'authorization'],
    ['/v1/consent/request', 'POST', 'content-type'],
    ['/v1/consent/token', 'POST', 'content-type, dpop'],
    ['/v1/consent/revoke', 'POST', 'authorization, content-type, dpop'],
    ['/v1/agui/review', 'POST', 'authorization, content-type'],
    ['/oauth/token', 'POST', 'content-type, dpop'],
  ];
  for (const [path, method, headers] of routes) {
    it(`a preflight for ${method} ${path} is 204 with the policy, never with credentials`, async () => {
      const r = await preflight(p, path, method, headers);
      assert.equal(r.status, 204);
      assert.equal(r.headers.get('access-control-allow-origin'), '*');
      assert.equal(r.headers.get('access-control-allow-credentials'), null);
      assert.ok(listOf(r.headers, 'access-control-allow-methods').includes(method.toLowerCase()));
      const allowed = listOf(r.headers, 'access-control-allow-headers');
      for (const h of ['authorization', 'content-type', 'dpop']) assert.ok(allowed.includes(h), h);
      assert.ok(!allowed.includes('x-csrf-token'), 'the session’s CSRF header is never allowed');
      assert.equal(r.headers.get('access-control-max-age'), '600');
      assert.equal(await r.text(), '');
    });
  }

  it('introspection and the session routes answer no preflight', async () => {
    for (const path of ['/oauth/introspect', '/app/apps.json', '/consent/x/decision', '/signin']) {
      const r = await preflight(p, path, 'POST', 'content-type');
      await r.body?.cancel();
      assert.notEqual(r.status, 204, path);
      assert.equal(r.headers.get('access-control-allow-origin'), null, path);
      assert.equal(r.headers.get('access-control-allow-credentials'), null, path);
    }
  });

  it('a read with an Origin is answered with `*` and the headers a page may read', async () => {
    const { token } = await p.grant();
    const r = await api(p.url, '/v1/profile/summary', { token, headers: { origin: ORIGIN } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.equal(r.headers.get('access-control-allow-credentials'), null);
    const exposed = listOf(r.headers, 'access-control-expose-headers');
    for (const h of ['dpop-nonce', 'www-authenticate', 'retry-after', 'ratelimit-remaining']) {
      assert.ok(exposed.includes(h), h);
    }
    const card = await api(p.url, '/.well-known/ppx-card.json', { headers: { origin: ORIGIN } });
    assert.equal(card.status, 200);
    assert.equal(card.headers.get('access-control-allow-origin'), '*');
  });

  it('a refusal is readable too: the 401 and its challenge', async () => {
    const r = await api(p.url, '/v1/profile/summary', { token: 'nope', headers: { origin: ORIGIN } });
    assert.equal(r.status, 401);
    assert.equal(r.json.error, 'invalid_token');
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.ok(r.headers.get('www-authenticate'));
  });

  it('preflights spend no budget, and are counted as 204, never as refused calls', async () => {
    await time.toNextWindow(WINDOW_MS);
    const scrape = async () => (await fetch(`${p.url}/metrics`)).text();
    const before = await scrape();
    const options = { surface: 'http', method: 'OPTIONS' };
    const verifications = (t: string) => sample(t, 'ppx_token_verifications_total', {});
    for (let i = 0; i < LIMIT * 3; i++) {
      const r = await preflight(p, '/v1/extensions', 'GET', 'authorization');
      assert.equal(r.status, 204);
      assert.equal(r.headers.get('ratelimit-remaining'), null, 'the limiter never saw it');
    }
    // The address's budget is whole: the first request after them has all but itself left.
    const read = await api(p.url, '/v1/extensions', { headers: { origin: ORIGIN } });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.headers.get('ratelimit-remaining'), String(LIMIT - 1));
    const afterwards = await scrape();
    const counted = (t: string, status: string, route?: string) =>
      sample(t, 'ppx_http_requests_total', { ...options, status, ...(route ? { route } : {}) });
    assert.equal(counted(afterwards, '204', '/v1/*') - counted(before, '204', '/v1/*'), LIMIT * 3);
    for (const status of ['401', '403', '405', '429']) assert.equal(counted(afterwards, status), 0, status);
    assert.equal(verifications(afterwards), verifications(before), 'no token was read');
  });

  it('a rate-limited answer is readable, with its Retry-After exposed', async () => {
    await time.toNextWindow(WINDOW_MS);
    const read = () => api(p.url, '/v1/extensions', { headers: { origin: ORIGIN } });
    for (let i = 0; i < LIMIT; i++) assert.equal((await read()).status, 200);
    const refused = await read();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('access-control-allow-origin'), '*');
    assert.ok(refused.headers.get('retry-after'));
    assert.ok(listOf(refused.headers, 'access-control-expose-headers').includes('retry-after'));
  });

  it('a session route’s answer carries no CORS header, whatever the Origin; a session review run never credentials', async () => {
    const cookie = await signedInCookie(p);
    const apps = await api(p.url, '/app/apps.json', { headers: { origin: ORIGIN, cookie } });
    assert.equal(apps.status, 200, apps.text);
    assert.equal(apps.headers.get('access-control-allow-origin'), null);
    assert.equal(apps.headers.get('access-control-allow-credentials'), null);
    // Under /v1 the review run has the open policy (for an app with a token), so a browser would
    // refuse any credentialed request to it; and the server refuses the session from elsewhere.
    await time.toNextWindow(WINDOW_MS);
    const run = await api(p.url, '/v1/agui/review', {
      headers: { origin: ORIGIN, cookie },
      body: { threadId: 't', runId: 'r', messages: [], forwardedProps: { follow: false } },
    });
    assert.equal(run.status, 403, run.text);
    assert.equal(run.json.error, 'access_denied');
    assert.equal(run.headers.get('access-control-allow-origin'), '*');
    assert.equal(run.headers.get('access-control-allow-credentials'), null);
  });
});
