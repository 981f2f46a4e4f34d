import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerClient } from '../../../../src/operations/accounts/clients.ts';
import {
  approve,
  ask,
  assertInvalidGrant,
  exchange,
  exchangeBody,
  type Pending,
  pkce,
  REDIRECT,
  readEffective,
} from '../../../support/consent-flow.ts';
import { assertError } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// Attacks on POST /v1/consent/token (WIRE-NOTES §2.3): each breaks one thing of a genuine,
// approved exchange. Every one is the same 400 invalid_grant with the same description, and none
// consumes the request: the genuine exchange still works afterwards, exactly once.

const CONFIDENTIAL = 'confidential-demo';
const SECRET = 'a-confidential-client-secret-0001';

describe('consent token exchange attacks over HTTP', () => {
  let p: TestProvider;
  /** The description every failure must carry: that of the id alone. */
  let description: string;

  before(async () => {
    p = await startTestProvider();
    const c = await registerClient(p.deps, {
      client_id: CONFIDENTIAL,
      name: 'A confidential client',
      redirect_uris: [REDIRECT],
      kind: 'confidential',
      secret: SECRET,
    });
    assert.ok(c.ok, JSON.stringify(c));
    const alone = await api(p.url, '/v1/consent/token', { body: { grant_request_id: 'gr_none' } });
    assertInvalidGrant(alone);
    description = alone.json.error_description;
  });
  after(() => p.close());

  /** An approved request, ready to exchange. */
  async function approved(over: Record<string, unknown> = {}): Promise<Pending> {
    const pending = await ask(p, over);
    const a = await approve(p, pending.id);
    assert.equal(a.status, 200, a.text);
    return pending;
  }

  /** The attack fails uniformly, and then the genuine exchange still works. */
  async function refusedThenGenuine(pending: Pending, attack: Record<string, unknown>) {
    const r = await exchange(p, pending, attack);
    assertInvalidGrant(r, description);
    const genuine = await exchange(
      p,
      pending,
      pending.clientId === CONFIDENTIAL ? { client_secret: SECRET } : {},
    );
    assert.equal(genuine.status, 200, `the failed attempt consumed the request: ${genuine.text}`);
  }

  it('the id alone (no request token) is invalid_grant', async () => {
    const pending = await approved();
    const r = await api(p.url, '/v1/consent/token', { body: { grant_request_id: pending.id } });
    assertInvalidGrant(r, description);
    assert.ok(!/request_token|code_verifier|client_id|required|field/i.test(r.text), r.text);
    assert.equal((await exchange(p, pending)).status, 200);
  });

  it('the id with client and verifier but no request token is invalid_grant', async () => {
    await refusedThenGenuine(await approved(), { request_token: undefined });
  });

  it('a wrong request token is invalid_grant', async () => {
    const other = await approved();
    const pending = await approved();
    await refusedThenGenuine(pending, { request_token: other.requestToken });
    await refusedThenGenuine(other, { request_token: `${other.requestToken}x` });
  });

  it('a wrong code verifier is invalid_grant', async () => {
    const pending = await approved();
    await refusedThenGenuine(pending, { code_verifier: pkce().verifier });
  });

  it('the challenge instead of the verifier is invalid_grant', async () => {
    const { verifier, challenge } = pkce();
    const pending = await ask(p, { code_challenge: challenge });
    assert.equal((await approve(p, pending.id)).status, 200);
    const mine = { ...pending, verifier };
    await refusedThenGenuine(mine, { code_verifier: challenge });
  });

  it('another client_id is invalid_grant', async () => {
    const pending = await approved();
    await refusedThenGenuine(pending, { client_id: 'travel-demo' });
    const again = await approved();
    await refusedThenGenuine(again, { client_id: 'no-such-client' });
  });

  it('a replay of a successful exchange is invalid_grant', async () => {
    const pending = await approved();
    const first = await exchange(p, pending);
    assert.equal(first.status, 200, first.text);
    assertInvalidGrant(await exchange(p, pending), description);
    assertInvalidGrant(await exchange(p, pending), description);
    // the first exchange's token is unaffected
    assert.equal((await readEffective(p, first.json.access_token)).status, 200);
  });

  describe('malformed bodies answer the same invalid_grant, naming no field', () => {
    const cases: [string, (pending: Pending) => string | Record<string, unknown>][] = [
      ['a missing code_verifier', (x) => ({ ...exchangeBody(x), code_verifier: undefined })],
      ['a missing client_id', (x) => ({ ...exchangeBody(x), client_id: undefined })],
      ['an extra field', (x) => ({ ...exchangeBody(x), scope: 'everything' })],
      ['a number for a string', (x) => ({ ...exchangeBody(x), request_token: 12345 })],
      ['an empty string', (x) => ({ ...exchangeBody(x), code_verifier: '' })],
      ['an empty object', () => ({})],
      ['a JSON array', () => '[]'],
      ['malformed JSON', (x) => `{"grant_request_id": "${x.id}",`],
    ];
    for (const [name, bodyOf] of cases) {
      it(`${name}`, async () => {
        const pending = await approved();
        const b = bodyOf(pending);
        const sent = typeof b === 'string' ? b : JSON.stringify(b);
        const r = await api(p.url, '/v1/consent/token', { body: sent });
        assertInvalidGrant(r, description);
        assert.ok(
          !/code_verifier|client_id|request_token|scope|JSON|expected|required/i.test(
            r.json.error_description,
          ),
        );
        assert.equal((await exchange(p, pending)).status, 200);
      });
    }
  });

  describe('a confidential client', () => {
    it('without its secret is invalid_grant', async () => {
      const pending = await approved({ client_id: CONFIDENTIAL });
      assertInvalidGrant(await exchange(p, pending), description);
      assertInvalidGrant(await exchange(p, pending), description);
    });

    it('with a wrong secret is invalid_grant', async () => {
      const pending = await approved({ client_id: CONFIDENTIAL });
      assertInvalidGrant(await exchange(p, pending, { client_secret: `${SECRET}-wrong` }), description);
      assertInvalidGrant(await exchange(p, pending, { client_secret: 'x'.repeat(40) }), description);
    });

    it('with its right secret exchanges (200), once', async () => {
      const pending = await approved({ client_id: CONFIDENTIAL });
      const r = await exchange(p, pending, { client_secret: SECRET });
      assert.equal(r.status, 200, r.text);
      assertInvalidGrant(await exchange(p, pending, { client_secret: SECRET }), description);
    });
  });

  it('five concurrent genuine exchanges: exactly one 200', async () => {
    const pending = await approved();
    const results = await Promise.all(Array.from({ length: 5 }, () => exchange(p, pending)));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 400, 400, 400, 400], results.map((r) => r.text).join('\n'));
    for (const r of results.filter((x) => x.status !== 200)) assertInvalidGrant(r, description);
    const winner = results.find((r) => r.status === 200)!;
    assert.equal((await readEffective(p, winner.json.access_token)).status, 200);
    assertInvalidGrant(await exchange(p, pending), description);
  });

  it('a token endpoint failure never names the field, even for an unknown request id', async () => {
    const r = await exchange(p, { ...(await approved()), id: 'gr_does-not-exist' });
    assertInvalidGrant(r, description);
    assertError(r, 400, 'invalid_grant');
  });
});
