import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testClock } from '../../support/clock.ts';
import { INITIALIZE, mcpGrant, rawPost, toolCall } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// /mcp shares the HTTP API's limiter (same window, keyed per token, else per address) and sends
// the RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) on every answer.

describe('MCP rate limiting (limit 5)', () => {
  let p: TestProvider;
  // The provider's clock is the test's: each test starts 1 s into a fresh 60 s window.
  const time = testClock();
  const awayFromWindowEdge = async () => time.toNextWindow(60_000);
  before(async () => {
    p = await startTestProvider({ rateLimit: 5, clock: time.clock });
  });
  after(() => p.close());

  it('advertises the limit, counts down per token, and answers the 6th request with 429', async () => {
    const { token } = await mcpGrant(p);
    await awayFromWindowEdge();
    for (let i = 1; i <= 5; i++) {
      const message = i === 1 ? INITIALIZE : toolCall('ppx_get_profile_summary', {}, i);
      const r = await rawPost(p, token, message);
      assert.equal(r.status, 200, `request ${i}: ${r.text}`);
      assert.equal(r.json.error, undefined, r.text);
      assert.equal(r.headers.get('ratelimit-limit'), '5');
      assert.equal(r.headers.get('ratelimit-remaining'), String(5 - i));
      assert.equal(r.headers.get('ratelimit-policy'), '5;w=60');
      assert.equal(r.headers.get('ratelimit-reset'), '59');
      assert.equal(r.headers.get('retry-after'), null);
    }
    const limited = await rawPost(p, token, toolCall('ppx_get_profile_summary', {}, 6));
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.json.error, 'rate_limited');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    assert.equal(limited.headers.get('retry-after'), '59');
    assert.equal(limited.headers.get('ratelimit-reset'), limited.headers.get('retry-after'));

    // another token has its own budget
    const other = await mcpGrant(p);
    const r = await rawPost(p, other.token, INITIALIZE);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('ratelimit-remaining'), '4');
  });

  it('limits callers without a token by address, and 401s still carry the headers', async () => {
    await awayFromWindowEdge();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof rawPost>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await rawPost(p, undefined, INITIALIZE);
      statuses.push(last.status);
      assert.equal(last.headers.get('ratelimit-limit'), '5');
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  });
});
