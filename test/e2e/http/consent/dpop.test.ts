import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import {
  approve,
  ask,
  exchangeBody,
  granted,
  type Pending,
  REDIRECT,
  readEffective,
  refresh,
} from '../../../support/consent-flow.ts';
import { type DpopKey, dpopKey, proof } from '../../../support/dpop.ts';
import { register } from '../../../support/oauth-flow.ts';
import { type ApiResponse, api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// DPoP (RFC 9449 §5) at the consent-v2 token endpoints, POST /v1/consent/token and
// POST /v1/consent/refresh: a proof binds the tokens to its key (and a public client's refresh
// family), as at the OAuth token endpoint; a bad or missing proof where one is needed is 400
// invalid_dpop_proof and spends nothing; a request without a DPoP header is answered as before.

const TOKEN = '/v1/consent/token';
const REFRESH = '/v1/consent/refresh';

function post(p: TestProvider, path: string, body: Record<string, unknown>, dpop?: string) {
  return api(p.url, path, { body, ...(dpop !== undefined ? { headers: { dpop } } : {}) });
}

function proofFor(p: TestProvider, key: DpopKey, path: string, over: Record<string, unknown> = {}) {
  return proof(key, { htm: 'POST', htu: p.url + path, ...over });
}

/** An approved request, not yet exchanged. */
async function approved(p: TestProvider, over: Record<string, unknown> = {}): Promise<Pending> {
  const pending = await ask(p, over);
  const a = await approve(p, pending.id);
  assert.equal(a.status, 200, a.text);
  return pending;
}

function assertProofRefused(r: ApiResponse, description?: RegExp): void {
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.error, 'invalid_dpop_proof');
  assert.deepEqual(Object.keys(r.json).sort(), ['error', 'error_description']);
  assert.equal(r.headers.get('www-authenticate'), null);
  assert.equal(r.headers.get('cache-control'), 'no-store');
  if (description !== undefined) assert.match(r.json.error_description, description);
}

describe('DPoP at the consent-v2 token endpoints (RFC 9449 §5)', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('a proof at /v1/consent/token binds the access token (cnf.jkt, token_type DPoP), used with proofs', async () => {
    const pending = await approved(p);
    const key = await dpopKey();
    const t = await post(p, TOKEN, exchangeBody(pending), await proofFor(p, key, TOKEN));
    assert.equal(t.status, 200, t.text);
    assert.equal(t.json.token_type, 'DPoP');
    const access = t.json.access_token as string;
    assert.deepEqual(decodeJwt(access)['cnf'], { jkt: key.jkt });
    assert.ok(t.json.refresh_token);

    // The bound token works only as DPoP with a proof by its key.
    const asBearer = await readEffective(p, access);
    assert.equal(asBearer.status, 401);
    assert.match(asBearer.headers.get('www-authenticate')!, /^DPoP realm="ppx", .*error="invalid_token"/);
    const read = await api(p.url, '/v1/profile/effective', {
      body: {},
      headers: {
        authorization: `DPoP ${access}`,
        dpop: await proof(key, { htm: 'POST', htu: `${p.url}/v1/profile/effective`, accessToken: access }),
      },
    });
    assert.equal(read.status, 200, read.text);
  });

  it("a public client's family is bound: a refresh needs a proof by its key, and a refusal spends nothing", async () => {
    const pending = await approved(p);
    const key = await dpopKey();
    const t = await post(p, TOKEN, exchangeBody(pending), await proofFor(p, key, TOKEN));
    assert.equal(t.status, 200, t.text);
    const body = { client_id: pending.clientId, refresh_token: t.json.refresh_token };

    assertProofRefused(await post(p, REFRESH, body), /bound to a DPoP key/);
    assertProofRefused(
      await post(p, REFRESH, body, await proofFor(p, await dpopKey(), REFRESH)),
      /another key/,
    );
    // A proof made for the other token endpoint is not one for this one.
    assertProofRefused(await post(p, REFRESH, body, await proofFor(p, key, TOKEN)), /is not for/);

    const right = await post(p, REFRESH, body, await proofFor(p, key, REFRESH));
    assert.equal(right.status, 200, right.text);
    assert.equal(right.json.token_type, 'DPoP');
    assert.deepEqual(decodeJwt(right.json.access_token)['cnf'], { jkt: key.jkt });
    // The new refresh token stays bound to the same key.
    const next = { client_id: pending.clientId, refresh_token: right.json.refresh_token };
    assertProofRefused(await post(p, REFRESH, next));
    const again = await post(p, REFRESH, next, await proofFor(p, key, REFRESH));
    assert.equal(again.status, 200, again.text);
  });

  it('a bad proof at /v1/consent/token is 400 invalid_dpop_proof and spends nothing', async () => {
    const pending = await approved(p);
    const key = await dpopKey();
    const url = p.url + TOKEN;
    const used = await proofFor(p, key, TOKEN);
    const bad = [
      await proof(key, { htm: 'GET', htu: url }),
      await proof(key, { htm: 'POST', htu: `${p.url}/oauth/token` }),
      await proof(key, { htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000) - 3600 }),
      'not-a-proof',
      '',
    ];
    for (const dpop of bad)
      assertProofRefused(await post(p, TOKEN, exchangeBody(pending), dpop), /^the DPoP proof /);
    const ok = await post(p, TOKEN, exchangeBody(pending), used);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.token_type, 'DPoP');
    // §11.1: a proof is single-use, here as anywhere (this request is refused for its proof alone).
    const replayed = await post(p, TOKEN, exchangeBody(await approved(p)), used);
    assertProofRefused(replayed, /already used/);
  });

  it('without a DPoP header nothing changes: a Bearer token and an unbound family', async () => {
    const g = await granted(p);
    assert.equal(g.response.json.token_type, 'Bearer');
    assert.equal(decodeJwt(g.access)['cnf'], undefined);
    const f = await refresh(p, g.refresh!);
    assert.equal(f.status, 200, f.text);
    assert.equal(f.json.token_type, 'Bearer');
    assert.equal(f.headers.get('dpop-nonce'), null);
    // A proof at refresh binds that access token, and the family stays unbound (a later refresh
    // without a proof still works).
    const key = await dpopKey();
    const bound = await post(
      p,
      REFRESH,
      { client_id: 'fragrance-demo', refresh_token: f.json.refresh_token },
      await proofFor(p, key, REFRESH),
    );
    assert.equal(bound.status, 200, bound.text);
    assert.equal(bound.json.token_type, 'DPoP');
    assert.deepEqual(decodeJwt(bound.json.access_token)['cnf'], { jkt: key.jkt });
  });

  it('a client registered with dpop_bound_access_tokens cannot get a bearer token here either', async () => {
    const reg = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      dpop_bound_access_tokens: true,
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.json));
    const clientId = reg.json.client_id as string;
    const pending = await approved(p, { client_id: clientId });
    assertProofRefused(await post(p, TOKEN, exchangeBody(pending)), /dpop_bound_access_tokens/);
    const key = await dpopKey();
    const t = await post(p, TOKEN, exchangeBody(pending), await proofFor(p, key, TOKEN));
    assert.equal(t.status, 200, t.text);
    assert.equal(t.json.token_type, 'DPoP');
    const body = { client_id: clientId, refresh_token: t.json.refresh_token };
    assertProofRefused(await post(p, REFRESH, body), /DPoP/);
    const f = await post(p, REFRESH, body, await proofFor(p, key, REFRESH));
    assert.equal(f.status, 200, f.text);
  });

  it('the OpenAPI document lists the proof failures as 400 on both routes', async () => {
    const doc = (await api(p.url, '/openapi.json')).json;
    for (const path of [TOKEN, REFRESH]) {
      const responses = doc.paths[path].post.responses;
      assert.match(responses['400'].description, /invalid_dpop_proof/);
      assert.match(responses['400'].description, /use_dpop_nonce/);
      assert.equal(responses['401'], undefined);
    }
  });
});

describe('DPoP nonces at the consent-v2 token endpoints (RFC 9449 §8)', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider({ env: { PPX_DPOP_NONCE: '1' } });
  });
  after(() => p.close());

  it('a proof without the nonce is 400 use_dpop_nonce with DPoP-Nonce, and with it succeeds', async () => {
    const pending = await approved(p);
    const key = await dpopKey();
    const first = await post(p, TOKEN, exchangeBody(pending), await proofFor(p, key, TOKEN));
    assert.equal(first.status, 400, first.text);
    assert.equal(first.json.error, 'use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce');
    assert.ok(nonce);
    const second = await post(p, TOKEN, exchangeBody(pending), await proofFor(p, key, TOKEN, { nonce }));
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.token_type, 'DPoP');
    assert.ok(second.headers.get('dpop-nonce'));
  });
});
