import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import {
  authorizeCode,
  codeRequest,
  get,
  pkce,
  postForm,
  publicClient,
  REDIRECT,
  register,
  signedInCookie,
} from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// /oauth/authorize without redirect_uri (OAuth 2.1 §4.1.1, RFC 6749 §3.1.2.3, WIRE-NOTES §2.1):
// optional when the client registered exactly one, required when it registered several; a client
// registered with none cannot use the code flow at all, and is told so on a page, never redirected.

function assertErrorPage(r: Response) {
  assert.equal(r.status, 400);
  assert.equal(r.headers.get('location'), null, 'never redirects');
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
}

describe('/oauth/authorize without redirect_uri', () => {
  let p: TestProvider;
  let cookie: string;
  let oneUri: string;
  before(async () => {
    p = await startTestProvider();
    cookie = await signedInCookie(p);
    oneUri = await publicClient(p);
    assert.ok((await registerClient(p.deps, { client_id: 'back-channel', name: 'Back Channel App' })).ok);
  });
  after(() => p.close());

  const token = () => `${p.url}/oauth/token`;

  it('one registered URI: it is used, and the code is exchanged without redirect_uri', async () => {
    const { back, code, verifier } = await authorizeCode(p, cookie, oneUri, { redirect_uri: undefined });
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'state-123');
    const t = await postForm(token(), {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: oneUri,
    });
    assert.equal(t.status, 200, t.text);
    assert.equal(t.json.token_type, 'Bearer');
  });

  it('one registered URI, omitted: the token request may still name it, but no other', async () => {
    const named = await authorizeCode(p, cookie, oneUri, { redirect_uri: undefined });
    const ok = await postForm(token(), {
      grant_type: 'authorization_code',
      code: named.code,
      redirect_uri: REDIRECT,
      code_verifier: named.verifier,
      client_id: oneUri,
    });
    assert.equal(ok.status, 200, ok.text);
    const other = await authorizeCode(p, cookie, oneUri, { redirect_uri: undefined });
    const bad = await postForm(token(), {
      grant_type: 'authorization_code',
      code: other.code,
      redirect_uri: `${REDIRECT}/other`,
      code_verifier: other.verifier,
      client_id: oneUri,
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json.error, 'invalid_grant');
  });

  it('named at the authorization request: the token request must name it too (RFC 6749 §4.1.3)', async () => {
    const { code, verifier } = await authorizeCode(p, cookie, oneUri);
    const r = await postForm(token(), {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: oneUri,
    });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error, 'invalid_grant');
  });

  it('several registered URIs: redirect_uri is required, on an error page', async () => {
    const reg = await register(p, {
      redirect_uris: [REDIRECT, 'http://localhost:7777/second'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(reg.status, 201);
    const r = await get(
      codeRequest(p, reg.json.client_id, pkce().challenge, { redirect_uri: undefined }),
      cookie,
    );
    assertErrorPage(r);
    assert.match(await r.text(), /several redirect URIs/);
  });

  it('a client registered with none cannot use the code flow: an error page that says why', async () => {
    const { challenge } = pkce();
    const omitted = await get(codeRequest(p, 'back-channel', challenge, { redirect_uri: undefined }), cookie);
    assertErrorPage(omitted);
    assert.match(await omitted.text(), /no redirect URI/);
    assertErrorPage(await get(codeRequest(p, 'back-channel', challenge), cookie));
  });
});
