import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  basic,
  codeFlow,
  codeRequest,
  consentInBrowser,
  pkce,
  postForm,
  publicClient,
  REDIRECT,
  register,
  signedInCookie,
} from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

/** POST /v1/profile/effective with a bearer token. */
function effective(p: TestProvider, token: string) {
  return api(p.url, '/v1/profile/effective', { token, body: { requested_domain: 'fragrance' } });
}

// The authorization code flow end to end over real HTTP: authorize → the consent page → code →
// token (RFC 6749 §4.1.3) → the HTTP API → refresh with rotation and reuse detection (§6).

describe('authorization code flow', () => {
  let p: TestProvider;
  let cookie: string;
  let clientId: string;
  let token: string;
  before(async () => {
    p = await startTestProvider();
    cookie = await signedInCookie(p);
    clientId = await publicClient(p);
    token = `${p.url}/oauth/token`;
  });
  after(() => p.close());

  it('code + state + iss come back, and the code buys tokens once', async () => {
    const { back, code, verifier, tokens } = await codeFlow(p, cookie, clientId, { resource: p.url });
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'state-123');
    assert.equal(back.searchParams.get('iss'), p.url);
    assert.match(code, /^gr_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);

    assert.equal(tokens.status, 200, tokens.text);
    assert.equal(tokens.headers.get('cache-control'), 'no-store');
    const t = tokens.json;
    assert.equal(t.token_type, 'Bearer');
    assert.ok(Number.isInteger(t.expires_in) && t.expires_in > 0);
    assert.equal(typeof t.refresh_token, 'string');
    assert.equal(t.scope, 'ppx:read ppx:query');
    assert.equal(t.authorization_details.length, 1);
    assert.equal(t.authorization_details[0].type, 'ppx_grant');
    assert.equal(t.authorization_details[0].grant_id, t.grant_id);
    assert.deepEqual(t.authorization_details[0].allowed_operations, ['read', 'query']);

    // resource = the HTTP API: the token reads the effective profile.
    const read = await effective(p, t.access_token);
    assert.equal(read.status, 200, read.text);

    // The code again: refused, and the grant it bought is revoked (RFC 6749 §4.1.2).
    const again = await postForm(token, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    assert.equal(again.status, 400);
    assert.deepEqual(again.json.error, 'invalid_grant');
    assert.equal((await effective(p, t.access_token)).status, 401);
  });

  it('a token for the A2A resource calls the preference agent, and only it', async () => {
    const { tokens } = await codeFlow(p, cookie, clientId, { resource: `${p.url}/a2a` });
    assert.equal(tokens.status, 200, tokens.text);
    const call = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.json.access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'get_effective_profile', params: {} }),
    });
    const answer = (await call.json()) as { result?: { claims?: unknown[] } };
    assert.equal(call.status, 200);
    assert.ok(Array.isArray(answer.result?.claims), JSON.stringify(answer).slice(0, 200));
    assert.equal((await effective(p, tokens.json.access_token)).status, 401);
  });

  it('a token for the MCP resource (the default) is refused by the HTTP API', async () => {
    const { tokens } = await codeFlow(p, cookie, clientId);
    assert.equal(tokens.status, 200);
    const r = await effective(p, tokens.json.access_token);
    assert.equal(r.status, 401);
    assert.match(r.json.error_description, /another resource/);
  });

  it('each wrong part of the exchange is the same invalid_grant', async () => {
    const { verifier, challenge } = pkce();
    const back = await consentInBrowser(codeRequest(p, clientId, challenge, { resource: p.url }), cookie);
    const code = back.searchParams.get('code')!;
    const good = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    };
    const other = await publicClient(p);
    for (const bad of [
      { code_verifier: pkce().verifier },
      { code_verifier: undefined },
      { redirect_uri: 'http://localhost:7777/other' },
      { redirect_uri: undefined },
      { code: `${code}x` },
      { code: code.split('.')[0]! },
      { resource: `${p.url}/mcp` },
      { client_id: other },
    ]) {
      const params = Object.fromEntries(
        Object.entries({ ...good, ...bad }).filter(([, v]) => v !== undefined),
      ) as Record<string, string>;
      const r = await postForm(token, params);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(r.json.error, 'invalid_grant', JSON.stringify(bad));
      assert.equal(r.headers.get('cache-control'), 'no-store');
    }
    // Nothing above consumed the code.
    const ok = await postForm(token, { ...good, resource: p.url });
    assert.equal(ok.status, 200, ok.text);
  });

  it('a refresh asking for a scope the grant was not given is invalid_scope, and spends nothing', async () => {
    const { tokens } = await codeFlow(p, cookie, clientId, { resource: p.url });
    const refresh = tokens.json.refresh_token;
    const wider = await postForm(token, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
      scope: 'ppx:read ppx:export',
    });
    assert.equal(wider.status, 400, wider.text);
    assert.equal(wider.json.error, 'invalid_scope');
    assert.match(wider.json.error_description, /ppx:export was not granted/);
    // The same refresh token still works (nothing rotated), asking for less, or for the same.
    const narrower = await postForm(token, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
      scope: 'ppx:read',
    });
    assert.equal(narrower.status, 200, narrower.text);
    assert.equal(narrower.json.scope, 'ppx:read ppx:query', 'the grant as it is');
    const same = await postForm(token, {
      grant_type: 'refresh_token',
      refresh_token: narrower.json.refresh_token,
      client_id: clientId,
      scope: 'ppx:read ppx:query',
    });
    assert.equal(same.status, 200, same.text);
  });

  it('a public client sending a secret is refused (invalid_client): it has none', async () => {
    const { verifier, challenge } = pkce();
    const back = await consentInBrowser(codeRequest(p, clientId, challenge, { resource: p.url }), cookie);
    const params = {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    };
    const posted = await postForm(token, { ...params, client_secret: 'guessed' });
    assert.equal(posted.status, 401, posted.text);
    assert.equal(posted.json.error, 'invalid_client');
    assert.match(posted.json.error_description, /public and has no secret/);
    // Nothing was spent: the real client, sending no secret, still redeems the code.
    assert.equal((await postForm(token, params)).status, 200);
  });

  it('refresh rotates, keeps the audience; a replayed refresh token kills the family', async () => {
    const { tokens } = await codeFlow(p, cookie, clientId, { resource: p.url });
    const first = tokens.json.refresh_token;
    const r1 = await postForm(token, {
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: clientId,
    });
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.headers.get('cache-control'), 'no-store');
    assert.notEqual(r1.json.refresh_token, first);
    assert.equal(r1.json.grant_id, tokens.json.grant_id);
    assert.equal((await effective(p, r1.json.access_token)).status, 200, 'audience kept');

    const other = await postForm(token, {
      grant_type: 'refresh_token',
      refresh_token: r1.json.refresh_token,
      client_id: clientId,
      resource: `${p.url}/mcp`,
    });
    assert.equal(other.status, 400);
    assert.equal(other.json.error, 'invalid_target');

    const replay = await postForm(token, {
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: clientId,
    });
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, 'invalid_grant');
    const current = await postForm(token, {
      grant_type: 'refresh_token',
      refresh_token: r1.json.refresh_token,
      client_id: clientId,
    });
    assert.equal(current.status, 400, 'the whole family died');
    assert.equal(current.json.error, 'invalid_grant');
    assert.equal((await effective(p, r1.json.access_token)).status, 401, 'and the grant');
  });

  it('authorization_details shape the grant the tokens carry', async () => {
    const detail = {
      type: 'ppx_grant',
      detail_id: 'fragrance-read',
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['fragrance'],
      allowed_operations: ['read', 'query'],
      duration_days: 7,
    };
    const { tokens } = await codeFlow(p, cookie, clientId, {
      scope: undefined,
      authorization_details: JSON.stringify([detail]),
      resource: p.url,
    });
    assert.equal(tokens.status, 200, tokens.text);
    const d = tokens.json.authorization_details[0];
    assert.deepEqual(d.allowed_namespaces, ['fragrance']);
    assert.deepEqual(d.purposes, ['recommendation']);
    assert.ok(Date.parse(d.expires_at) <= Date.now() + 7 * 86_400_000 + 60_000);
  });

  it('client authentication: unknown client and wrong secret are 401 invalid_client with a Basic challenge', async () => {
    const reg = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const { client_id: id, client_secret: secret } = reg.json;
    for (const [params, headers] of [
      [{ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' }, {}],
      [{ grant_type: 'refresh_token', refresh_token: 'x' }, basic(id, `${secret}x`)],
      [{ grant_type: 'refresh_token', refresh_token: 'x', client_id: id }, {}],
    ] as const) {
      const r = await postForm(token, params, headers);
      assert.equal(r.status, 401);
      assert.equal(r.json.error, 'invalid_client');
      assert.match(r.headers.get('www-authenticate') ?? '', /^Basic /);
    }
    const both = await postForm(
      token,
      { grant_type: 'refresh_token', refresh_token: 'x', client_secret: secret },
      basic(id, secret),
    );
    assert.equal(both.status, 400, 'one authentication method only (RFC 6749 §2.3)');
    const unsupported = await postForm(token, { grant_type: 'password', client_id: clientId });
    assert.equal(unsupported.json.error, 'unsupported_grant_type');
  });

  it('a confidential client exchanges with client_secret_basic and client_secret_post', async () => {
    for (const method of ['client_secret_basic', 'client_secret_post']) {
      const reg = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: method });
      const { client_id: id, client_secret: secret } = reg.json;
      const { verifier, challenge } = pkce();
      const back = await consentInBrowser(codeRequest(p, id, challenge, { resource: p.url }), cookie);
      const params = {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      };
      const r =
        method === 'client_secret_basic'
          ? await postForm(token, params, basic(id, secret))
          : await postForm(token, { ...params, client_id: id, client_secret: secret });
      assert.equal(r.status, 200, r.text);
      assert.equal((await effective(p, r.json.access_token)).status, 200);
      const refresh = { grant_type: 'refresh_token', refresh_token: r.json.refresh_token };
      const noSecret = await postForm(token, { ...refresh, client_id: id });
      assert.equal(noSecret.status, 401);
      const refreshed =
        method === 'client_secret_basic'
          ? await postForm(token, refresh, basic(id, secret))
          : await postForm(token, { ...refresh, client_id: id, client_secret: secret });
      assert.equal(refreshed.status, 200, refreshed.text);
    }
  });

  it('the token endpoint also takes JSON', async () => {
    const { verifier, challenge } = pkce();
    const back = await consentInBrowser(codeRequest(p, clientId, challenge), cookie);
    const r = await api(p.url, '/oauth/token', {
      body: {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code'),
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      },
    });
    assert.equal(r.status, 200, r.text);
  });
});
