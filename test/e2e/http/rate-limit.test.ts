import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRateCounter } from '../../../src/store/rate-limits.ts';
import { testClock } from '../../support/clock.ts';
import { assertError } from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) and 429 with Retry-After. The
// provider's clock is the test's: each test starts 1 s into a fresh 60 s window.

const WINDOW_MS = 60_000;

describe('HTTP rate limiting (limit 5)', () => {
  let p: TestProvider;
  const time = testClock();
  const awayFromWindowEdge = async () => time.toNextWindow(WINDOW_MS);
  before(async () => {
    p = await startTestProvider({ rateLimit: 5, clock: time.clock });
  });
  after(() => p.close());

  it('advertises the limit, counts down, and answers the 6th request with 429 rate_limited', async () => {
    const { token } = await p.grant();
    await awayFromWindowEdge();
    for (let i = 1; i <= 5; i++) {
      const r = await api(p.url, '/v1/profile/summary', { token });
      assert.equal(r.status, 200, `request ${i}: ${r.text}`);
      assert.equal(r.headers.get('ratelimit-limit'), '5');
      assert.equal(r.headers.get('ratelimit-remaining'), String(5 - i));
      assert.equal(r.headers.get('ratelimit-policy'), '5;w=60');
      // 1 s into the window: 59 s until it ends.
      assert.equal(r.headers.get('ratelimit-reset'), '59');
      assert.equal(r.headers.get('retry-after'), null);
    }
    const limited = await api(p.url, '/v1/profile/summary', { token });
    assertError(limited, 429, 'rate_limited');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    assert.equal(limited.headers.get('ratelimit-limit'), '5');
    assert.equal(limited.headers.get('retry-after'), '59');
    assert.equal(limited.headers.get('ratelimit-reset'), limited.headers.get('retry-after'));
    // still limited on every endpoint for that caller, including POSTs
    const post = await api(p.url, '/v1/profile/query', { token, body: {} });
    assertError(post, 429, 'rate_limited');
  });

  it('counts callers apart: another token has its own budget', async () => {
    const a = await p.grant();
    const b = await p.grant();
    await awayFromWindowEdge();
    for (let i = 0; i < 6; i++) await api(p.url, '/v1/profile/summary', { token: a.token });
    const r = await api(p.url, '/v1/profile/summary', { token: b.token });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('ratelimit-remaining'), '4');
  });

  it('limits unauthenticated callers too, by address', async () => {
    await awayFromWindowEdge();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await api(p.url, '/v1/extensions');
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    assertError(last!, 429, 'rate_limited');
    assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  });

  it('counts down with the clock, and a new window gives the budget back', async () => {
    const { token } = await p.grant();
    await awayFromWindowEdge();
    for (let i = 0; i < 5; i++) await api(p.url, '/v1/profile/summary', { token });
    time.advance(40_000);
    const late = await api(p.url, '/v1/profile/summary', { token });
    assertError(late, 429, 'rate_limited');
    assert.equal(late.headers.get('retry-after'), '19');
    time.advance(18_999); // 1 ms before the window ends: still refused
    assertError(await api(p.url, '/v1/profile/summary', { token }), 429, 'rate_limited');
    time.advance(1); // the next window
    const fresh = await api(p.url, '/v1/profile/summary', { token });
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.headers.get('ratelimit-remaining'), '4');
    assert.equal(fresh.headers.get('ratelimit-reset'), '60');
  });
});

describe('a rate counter shared by two instances', () => {
  // What a shared store does for rate limits (the RateCounter port): two providers, each with its
  // own database, count one budget. Here the shared counter is one in memory; a PostgreSQL one
  // plugs in the same way.
  const time = testClock();
  const counter = new MemoryRateCounter();
  let a: TestProvider;
  let b: TestProvider;
  before(async () => {
    a = await startTestProvider({ rateLimit: 5, clock: time.clock, rateCounter: counter });
    b = await startTestProvider({ rateLimit: 5, clock: time.clock, rateCounter: counter });
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  it('counts requests to either against one budget per caller', async () => {
    time.toNextWindow(60_000);
    const statuses: number[] = [];
    for (const p of [a, b, a, b, a, b]) statuses.push((await api(p.url, '/v1/extensions')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    const r = await api(a.url, '/v1/extensions');
    assertError(r, 429, 'rate_limited');
    time.toNextWindow(60_000);
    assert.equal((await api(b.url, '/v1/extensions')).status, 200);
  });
});
