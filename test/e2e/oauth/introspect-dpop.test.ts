import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approve, ask, exchangeBody } from '../../support/consent-flow.ts';
import { dpopKey, proof } from '../../support/dpop.ts';
import {
  authorizeCode,
  basic,
  postForm,
  REDIRECT,
  register,
  signedInCookie,
} from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Introspection (RFC 7662) of DPoP-bound tokens: RFC 9449 §6.2 names the key in `cnf.jkt`, and a
// bound access token is of type `DPoP`; a bearer token is answered as before.

describe('introspection of DPoP-bound tokens (RFC 9449 §6.2)', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const introspect = (token: string, headers: Record<string, string>, extra: Record<string, string> = {}) =>
    postForm(`${p.url}/oauth/introspect`, { token, ...extra }, headers);

  it("a confidential client's bound access token: cnf.jkt and token_type DPoP; its refresh token is not bound", async () => {
    const reg = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const conf = { id: reg.json.client_id as string, secret: reg.json.client_secret as string };
    const { code, verifier } = await authorizeCode(p, await signedInCookie(p), conf.id);
    const url = `${p.url}/oauth/token`;
    const key = await dpopKey();
    const t = await postForm(
      url,
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
      { ...basic(conf.id, conf.secret), dpop: await proof(key, { htm: 'POST', htu: url }) },
    );
    assert.equal(t.status, 200, t.text);
    assert.equal(t.json.token_type, 'DPoP');

    const access = await introspect(t.json.access_token, basic(conf.id, conf.secret));
    assert.equal(access.json.active, true, access.text);
    assert.equal(access.json.token_type, 'DPoP');
    assert.deepEqual(access.json.cnf, { jkt: key.jkt });

    // §5: a confidential client's refresh tokens stay bound to its client authentication.
    const refresh = await introspect(t.json.refresh_token, basic(conf.id, conf.secret));
    assert.equal(refresh.json.active, true);
    assert.equal(refresh.json.token_type, 'refresh_token');
    assert.equal(refresh.json.cnf, undefined);
  });

  it("a public client's bound family (consent-v2) as its subject sees it: cnf.jkt on both tokens", async () => {
    const pending = await ask(p);
    assert.equal((await approve(p, pending.id)).status, 200);
    const key = await dpopKey();
    const t = await api(p.url, '/v1/consent/token', {
      body: exchangeBody(pending),
      headers: { dpop: await proof(key, { htm: 'POST', htu: `${p.url}/v1/consent/token` }) },
    });
    assert.equal(t.status, 200, t.text);
    const asSubject = { authorization: `Bearer ${p.subjectToken}` };
    const access = await introspect(t.json.access_token, asSubject);
    assert.equal(access.json.token_type, 'DPoP');
    assert.deepEqual(access.json.cnf, { jkt: key.jkt });
    const refresh = await introspect(t.json.refresh_token, asSubject);
    assert.equal(refresh.json.active, true);
    assert.deepEqual(refresh.json.cnf, { jkt: key.jkt });
  });

  it('a bearer token has no cnf and stays of type Bearer; an inactive one only says it is inactive', async () => {
    const { token, grant } = await p.grant();
    const asSubject = { authorization: `Bearer ${p.subjectToken}` };
    const bearer = await introspect(token, asSubject);
    assert.equal(bearer.json.active, true);
    assert.equal(bearer.json.token_type, 'Bearer');
    assert.equal(bearer.json.cnf, undefined);
    const r = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(r.status, 200, r.text);
    const ended = await introspect(token, asSubject);
    assert.equal(ended.json.active, false);
    assert.equal(ended.json.cnf, undefined);
  });
});
