import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  authorizeCode,
  basic,
  postForm,
  publicClient,
  REDIRECT,
  register,
  signedInCookie,
} from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Introspection (RFC 7662) and revocation (RFC 7009) over the same grant state the bearer check reads.

describe('introspection and revocation', () => {
  let p: TestProvider;
  let cookie: string;
  let conf: { id: string; secret: string };
  let other: { id: string; secret: string };
  before(async () => {
    p = await startTestProvider();
    cookie = await signedInCookie(p);
    const a = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_post',
    });
    conf = { id: a.json.client_id, secret: a.json.client_secret };
    const b = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    other = { id: b.json.client_id, secret: b.json.client_secret };
  });
  after(() => p.close());

  /** Tokens for the confidential client `conf`, for the MCP resource. */
  async function confTokens() {
    const { code, verifier } = await authorizeCode(p, cookie, conf.id);
    const r = await postForm(`${p.url}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: conf.id,
      client_secret: conf.secret,
    });
    assert.equal(r.status, 200, r.text);
    return r.json;
  }
  const introspect = (token: string, headers: Record<string, string>, extra: Record<string, string> = {}) =>
    postForm(`${p.url}/oauth/introspect`, { token, ...extra }, headers);

  it('a confidential client introspects its own tokens (RFC 7662 §2.2)', async () => {
    const t = await confTokens();
    const r = await introspect(t.access_token, basicOf(conf));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const grant = await p.deps.store.getGrant(t.grant_id);
    assert.deepEqual(Object.keys(r.json).sort(), [
      'active',
      'aud',
      'client_id',
      'exp',
      'grant_id',
      'iat',
      'iss',
      'pdpp_grant_status',
      'pdpp_token_kind',
      'scope',
      'sub',
      'token_type',
    ]);
    assert.equal(r.json.active, true);
    assert.equal(r.json.client_id, conf.id);
    assert.equal(r.json.aud, `${p.url}/mcp`);
    assert.equal(r.json.grant_id, t.grant_id);
    assert.equal(r.json.pdpp_token_kind, 'grant');
    assert.equal(r.json.pdpp_grant_status, 'active');
    assert.equal(r.json.sub, p.deps.pairwise.subject(grant!.subject_id, conf.id), 'pairwise for the client');
    assert.notEqual(r.json.sub, p.subjectId);
    assert.ok(r.json.exp > r.json.iat);

    const refresh = await introspect(
      t.refresh_token,
      {},
      { client_id: conf.id, client_secret: conf.secret, token_type_hint: 'refresh_token' },
    );
    assert.equal(refresh.json.active, true);
    assert.equal(refresh.json.token_type, 'refresh_token');

    // Another client learns nothing; a subject token sees its own grants' tokens.
    assert.deepEqual((await introspect(t.access_token, basicOf(other))).json, { active: false });
    const bySubject = await introspect(t.access_token, { authorization: `Bearer ${p.subjectToken}` });
    assert.equal(bySubject.json.active, true);
    assert.equal(bySubject.json.sub, p.subjectId);
    assert.deepEqual((await introspect('not-a-token', basicOf(conf))).json, { active: false });
  });

  it('introspection requires authentication', async () => {
    const pub = await publicClient(p);
    const t = await confTokens();
    const asPublic = await introspect(t.access_token, {}, { client_id: pub });
    assert.equal(asPublic.status, 401);
    assert.equal(asPublic.json.error, 'invalid_client');
    const anonymous = await introspect(t.access_token, {});
    assert.equal(anonymous.status, 401);
    const wrong = await introspect(t.access_token, basic(conf.id, 'wrong'));
    assert.equal(wrong.status, 401);
    const mcpToken = await introspect(t.access_token, { authorization: `Bearer ${t.access_token}` });
    assert.equal(mcpToken.status, 401, 'a token for the MCP resource is no token here');
    const { token: grantToken } = await p.grant();
    const asGrantee = await introspect(t.access_token, { authorization: `Bearer ${grantToken}` });
    assert.equal(asGrantee.status, 403, 'a grant token cannot introspect');
  });

  it('revoking a refresh token ends the grant, at once (RFC 7009 §2.1)', async () => {
    const t = await confTokens();
    const r = await postForm(`${p.url}/oauth/revoke`, {
      token: t.refresh_token,
      token_type_hint: 'refresh_token',
      client_id: conf.id,
      client_secret: conf.secret,
    });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
    const after = await introspect(t.access_token, basicOf(conf));
    assert.deepEqual(after.json, { active: false, pdpp_token_kind: 'grant', pdpp_grant_status: 'revoked' });
    const refresh = await postForm(`${p.url}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: conf.id,
      client_secret: conf.secret,
    });
    assert.equal(refresh.json.error, 'invalid_grant');
    assert.equal(
      refresh.json.error_description,
      'this app ended this access itself; ask the person to grant access again',
    );
    assert.equal((await p.deps.store.getGrant(t.grant_id))?.status, 'revoked');
  });

  it('revoking an access token ends its grant too; unknown and foreign tokens are a quiet 200', async () => {
    const t = await confTokens();
    const foreign = await postForm(`${p.url}/oauth/revoke`, { token: t.access_token }, basicOf(other));
    assert.equal(foreign.status, 200);
    assert.equal(
      (await introspect(t.access_token, basicOf(conf))).json.active,
      true,
      'another client cannot revoke it',
    );
    const unknown = await postForm(`${p.url}/oauth/revoke`, {
      token: 'nothing-like-a-token',
      client_id: conf.id,
      client_secret: conf.secret,
    });
    assert.equal(unknown.status, 200);
    const own = await postForm(`${p.url}/oauth/revoke`, {
      token: t.access_token,
      token_type_hint: 'access_token',
      client_id: conf.id,
      client_secret: conf.secret,
    });
    assert.equal(own.status, 200);
    assert.equal((await introspect(t.access_token, basicOf(conf))).json.active, false);
    const audit = await api(p.url, `/v1/audit/events?grant_id=${t.grant_id}`, { token: p.subjectToken });
    assert.ok(audit.json.events.some((e: { action: string }) => e.action === 'revoke'));
  });

  it('revocation authenticates the client', async () => {
    const r = await postForm(`${p.url}/oauth/revoke`, { token: 'x' }, basic(conf.id, 'wrong'));
    assert.equal(r.status, 401);
    assert.equal(r.json.error, 'invalid_client');
    const missing = await postForm(`${p.url}/oauth/revoke`, {
      client_id: conf.id,
      client_secret: conf.secret,
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error, 'invalid_request');
  });
});

function basicOf(c: { id: string; secret: string }) {
  return basic(c.id, c.secret);
}
