import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testClock } from '../../support/clock.ts';
import { assertError } from '../../support/http-api.ts';
import { INITIALIZE, mcpGrant, rawPost } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { signatureSpellings } from '../../support/spellings.ts';

// A token is one token (issue 10 item 6): of the 16 spellings of one JWT that differ only in the
// padding bits of the signature's last character, only the canonical one is accepted, and all of
// them draw on one rate-limit budget, on the HTTP API and on /mcp alike.

describe('one JWT, sixteen spellings', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('HTTP API: the canonical spelling is accepted, the 15 others are 401 invalid_token', async () => {
    const { token } = await p.grant();
    const spellings = signatureSpellings(token);
    assert.equal(spellings.length, 16, 'an Ed25519 signature ends in 4 padding bits');
    // The canonical spelling first, so that it is in the verification cache when the others come.
    const statuses: number[] = [];
    for (const spelled of spellings) {
      const r = await api(p.url, '/v1/profile/summary', { token: spelled });
      statuses.push(r.status);
      if (spelled === token) assert.equal(r.status, 200, r.text);
      else {
        assertError(r, 401, 'invalid_token');
        assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      }
    }
    assert.deepEqual(statuses, [200, ...Array(15).fill(401)]);
  });

  it('/mcp: the canonical spelling is accepted, the 15 others are 401', async () => {
    const { token } = await mcpGrant(p);
    const statuses: number[] = [];
    for (const spelled of signatureSpellings(token))
      statuses.push((await rawPost(p, spelled, INITIALIZE)).status);
    assert.deepEqual(statuses, [200, ...Array(15).fill(401)]);
  });
});

describe('one JWT, sixteen spellings, one rate-limit budget (limit 5)', () => {
  let p: TestProvider;
  const time = testClock();
  before(async () => {
    p = await startTestProvider({ rateLimit: 5, clock: time.clock });
  });
  after(() => p.close());

  it('HTTP API: at most 5 requests get through, whatever the spellings', async () => {
    const { token } = await p.grant();
    await time.toNextWindow(60_000);
    const spellings = signatureSpellings(token);
    let through = 0;
    for (let round = 0; round < 5; round++) {
      for (const spelled of spellings) {
        const r = await api(p.url, '/v1/profile/summary', { token: spelled });
        if (r.status !== 429) through++;
      }
    }
    assert.ok(through <= 5, `${through} of ${5 * spellings.length} requests got through`);
  });

  it('/mcp: at most 5 requests get through, whatever the spellings', async () => {
    const { token } = await mcpGrant(p);
    await time.toNextWindow(60_000);
    let through = 0;
    for (let round = 0; round < 5; round++) {
      for (const spelled of signatureSpellings(token)) {
        if ((await rawPost(p, spelled, INITIALIZE)).status !== 429) through++;
      }
    }
    assert.ok(through <= 5, `${through} requests got through`);
  });
});
