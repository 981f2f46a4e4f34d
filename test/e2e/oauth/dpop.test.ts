import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  auth,
  Client,
  DpopSession,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { dpopKey, proof } from '../../support/dpop.ts';
import {
  authorizeCode,
  codeRequest,
  consentInBrowser,
  pkce,
  postForm,
  REDIRECT,
  register,
  signedInCookie,
} from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// DPoP (RFC 9449) at the OAuth token endpoint, driven by the MCP SDK v2 client's DpopSession (the
// whole flow: discovery, registration, authorization, a DPoP-bound token, MCP calls with a proof
// each, refresh) and by hand-made proofs for the token endpoint's own rules (§5).

// biome-ignore lint/suspicious/noExplicitAny: the SDK's provider types are wide
type Any = any;

class DpopProvider implements OAuthClientProvider {
  info: Any;
  saved: Any;
  verifier = '';
  readonly cookie: string;
  readonly session: DpopSession;
  readonly extra: Record<string, unknown>;
  constructor(cookie: string, session: DpopSession, extra: Record<string, unknown> = {}) {
    this.cookie = cookie;
    this.session = session;
    this.extra = extra;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): Any {
    return {
      client_name: 'MCP SDK v2 DPoP client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.extra,
    };
  }
  state() {
    return 'dpop-state';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: Any) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: Any) {
    this.saved = tokens;
  }
  back: URL | undefined;
  async redirectToAuthorization(url: URL) {
    this.back = await consentInBrowser(url.href, this.cookie);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  dpop() {
    return this.session;
  }
  discovery: Any;
  saveDiscoveryState(state: Any) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** The SDK's whole flow: returns the provider with its DPoP-bound tokens saved. */
async function sdkFlow(p: TestProvider, extra: Record<string, unknown> = {}) {
  const session = await DpopSession.create();
  const provider = new DpopProvider(await signedInCookie(p), session, extra);
  const serverUrl = `${p.url}/mcp`;
  assert.equal(await auth(provider, { serverUrl }), 'REDIRECT');
  const code = provider.back!.searchParams.get('code')!;
  const iss = provider.back!.searchParams.get('iss')!;
  assert.equal(await auth(provider, { serverUrl, authorizationCode: code, iss }), 'AUTHORIZED');
  return { provider, session, serverUrl };
}

async function mcpCall(provider: DpopProvider, serverUrl: string) {
  const client = new Client({ name: 'dpop-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
  try {
    return await client.callTool({ name: 'ppx_get_effective_profile', arguments: {} });
  } finally {
    await client.close();
  }
}

describe('DPoP at the token endpoint (RFC 9449 §5)', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('publishes dpop_signing_alg_values_supported, asymmetric only', async () => {
    const as: Any = await (await fetch(`${p.url}/.well-known/oauth-authorization-server`)).json();
    assert.ok(as.dpop_signing_alg_values_supported.includes('ES256'));
    assert.ok(!as.dpop_signing_alg_values_supported.some((a: string) => a === 'none' || a.startsWith('HS')));
    const rs: Any = await (await fetch(`${p.url}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.deepEqual(rs.dpop_signing_alg_values_supported, as.dpop_signing_alg_values_supported);
    assert.equal(rs.dpop_bound_access_tokens_required, false);
  });

  it("the SDK v2 client's DpopSession: a DPoP-bound token, MCP calls with proofs, a bound refresh", async () => {
    const { provider, session, serverUrl } = await sdkFlow(p);
    const first = provider.saved;
    assert.equal(first.token_type, 'DPoP');
    assert.deepEqual(decodeJwt(first.access_token)['cnf'], { jkt: session.thumbprint });
    const called = await mcpCall(provider, serverUrl);
    assert.equal(called.isError, undefined, JSON.stringify(called).slice(0, 300));

    // The bound token alone is refused: as Bearer, and as DPoP without a proof.
    const asBearer = await fetch(serverUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(asBearer.status, 401);
    assert.match(
      asBearer.headers.get('www-authenticate')!,
      /^DPoP realm="ppx", .*error="invalid_token".*algs="ES256 /,
    );

    // Refresh: the SDK signs a proof at the token endpoint; the family's refresh token is bound.
    assert.equal(await auth(provider, { serverUrl }), 'AUTHORIZED');
    const second = provider.saved;
    assert.notEqual(second.access_token, first.access_token);
    assert.equal(second.token_type, 'DPoP');
    assert.deepEqual(decodeJwt(second.access_token)['cnf'], { jkt: session.thumbprint });
    const again = await mcpCall(provider, serverUrl);
    assert.equal(again.isError, undefined);
  });

  it("a public client's refresh token works only with a proof by its key", async () => {
    const { provider } = await sdkFlow(p);
    const refresh = provider.saved.refresh_token;
    const clientId = provider.info.client_id;
    const url = `${p.url}/oauth/token`;
    const form = { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId };
    const none = await postForm(url, form);
    assert.equal(none.status, 400);
    assert.equal(none.json.error, 'invalid_dpop_proof');
    assert.match(none.json.error_description, /bound to a DPoP key/);
    const other = await postForm(url, form, {
      dpop: await proof(await dpopKey(), { htm: 'POST', htu: url }),
    });
    assert.equal(other.status, 400);
    assert.equal(other.json.error, 'invalid_dpop_proof');
    assert.match(other.json.error_description, /another key/);
    // Neither refusal spent the token: with the key it still rotates.
    const right = await postForm(url, form, {
      dpop: await provider.session.buildProof({ htm: 'POST', htu: url }),
    });
    assert.equal(right.status, 200, right.text);
    assert.equal(right.json.token_type, 'DPoP');
  });

  it('a client registered with dpop_bound_access_tokens cannot get a bearer token', async () => {
    const reg = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      dpop_bound_access_tokens: true,
    });
    assert.equal(reg.json.dpop_bound_access_tokens, true);
    const clientId = reg.json.client_id;
    const { code, verifier } = await authorizeCode(p, await signedInCookie(p), clientId);
    const url = `${p.url}/oauth/token`;
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    };
    const bare = await postForm(url, form);
    assert.equal(bare.status, 400);
    assert.equal(bare.json.error, 'invalid_dpop_proof');
    assert.match(bare.json.error_description, /dpop_bound_access_tokens/);
    const key = await dpopKey();
    const bound = await postForm(url, form, { dpop: await proof(key, { htm: 'POST', htu: url }) });
    assert.equal(bound.status, 200, bound.text);
    assert.equal(bound.json.token_type, 'DPoP');
    assert.deepEqual(decodeJwt(bound.json.access_token)['cnf'], { jkt: key.jkt });
    const badRegistration = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      dpop_bound_access_tokens: 'yes',
    });
    assert.equal(badRegistration.status, 400);
  });

  it('a bad proof at the token endpoint is 400 invalid_dpop_proof and spends nothing', async () => {
    const reg = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const clientId = reg.json.client_id;
    const { code, verifier } = await authorizeCode(p, await signedInCookie(p), clientId);
    const url = `${p.url}/oauth/token`;
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    };
    const key = await dpopKey();
    const bad = [
      await proof(key, { htm: 'GET', htu: url }),
      await proof(key, { htm: 'POST', htu: `${p.url}/oauth/other` }),
      await proof(key, { htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000) - 3600 }),
      'not-a-proof',
    ];
    for (const dpop of bad) {
      const r = await postForm(url, form, { dpop });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.error, 'invalid_dpop_proof');
      assert.match(r.json.error_description, /^the DPoP proof /);
    }
    const used = await proof(key, { htm: 'POST', htu: url });
    const ok = await postForm(url, form, { dpop: used });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.token_type, 'DPoP');
    // A bearer client (no proof) is unaffected: exchanged elsewhere in the suite, Bearer as before.
  });

  it('a code bound with dpop_jkt (RFC 9449 §10) is exchanged only with a proof by that key, spending nothing before', async () => {
    const reg = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const clientId = reg.json.client_id;
    const [key, other] = [await dpopKey(), await dpopKey()];
    const cookie = await signedInCookie(p);
    const malformed = await fetch(codeRequest(p, clientId, pkce().challenge, { dpop_jkt: 'short' }), {
      headers: { cookie },
      redirect: 'manual',
    });
    assert.equal(malformed.status, 302, 'a malformed dpop_jkt goes back to the client');
    const back = new URL(malformed.headers.get('location') ?? '', p.url);
    assert.equal(back.searchParams.get('error'), 'invalid_request');
    assert.match(back.searchParams.get('error_description') ?? '', /dpop_jkt/);
    const { code, verifier } = await authorizeCode(p, cookie, clientId, { dpop_jkt: key.jkt });
    const url = `${p.url}/oauth/token`;
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    };
    const bare = await postForm(url, form);
    assert.equal(bare.status, 400, bare.text);
    assert.equal(bare.json.error, 'invalid_dpop_proof');
    assert.match(bare.json.error_description, /dpop_jkt/);
    const wrongKey = await postForm(url, form, { dpop: await proof(other, { htm: 'POST', htu: url }) });
    assert.equal(wrongKey.status, 400, wrongKey.text);
    assert.equal(wrongKey.json.error, 'invalid_dpop_proof');
    const right = await postForm(url, form, { dpop: await proof(key, { htm: 'POST', htu: url }) });
    assert.equal(right.status, 200, right.text);
    assert.deepEqual(decodeJwt(right.json.access_token)['cnf'], { jkt: key.jkt });
  });
});

describe('DPoP nonces (RFC 9449 §8, §9), when the server asks for them', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider({ env: { PPX_DPOP_NONCE: '1' } });
  });
  after(() => p.close());

  it('a proof without the nonce is told use_dpop_nonce with a DPoP-Nonce; the SDK retries and succeeds', async () => {
    const url = `${p.url}/oauth/token`;
    const key = await dpopKey();
    const reg = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const form = { grant_type: 'refresh_token', refresh_token: 'x', client_id: reg.json.client_id };
    const r = await postForm(url, form, {
      dpop: await proof(key, { htm: 'POST', htu: url }),
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'use_dpop_nonce');
    const nonce = r.headers.get('dpop-nonce');
    assert.ok(nonce);

    const { provider, serverUrl } = await sdkFlow(p);
    assert.equal(provider.saved.token_type, 'DPoP');
    const called = await mcpCall(provider, serverUrl);
    assert.equal(called.isError, undefined);

    // At the resource: 401 with a DPoP challenge naming use_dpop_nonce, and the nonce to use.
    const token = provider.saved.access_token;
    const bare = await fetch(serverUrl, {
      method: 'POST',
      headers: {
        authorization: `DPoP ${token}`,
        dpop: await provider.session.buildProof({
          htm: 'POST',
          htu: serverUrl,
          accessToken: token,
          nonce: 'stale',
        }),
      },
    });
    assert.equal(bare.status, 401);
    assert.match(bare.headers.get('www-authenticate')!, /^DPoP .*error="use_dpop_nonce"/);
    assert.ok(bare.headers.get('dpop-nonce'));
  });
});
