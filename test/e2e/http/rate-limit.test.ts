import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { assertError, awayFromWindowEdge } from './helpers.ts';

// RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) and 429 with Retry-After.

describe('HTTP rate limiting (limit 5)', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider({ rateLimit: 5 });
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
      const reset = Number(r.headers.get('ratelimit-reset'));
      assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `reset ${reset}`);
      assert.equal(r.headers.get('retry-after'), null);
    }
    const limited = await api(p.url, '/v1/profile/summary', { token });
    assertError(limited, 429, 'rate_limited');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    assert.equal(limited.headers.get('ratelimit-limit'), '5');
    const retry = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry}`);
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
});
