import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { consentInBrowser, postForm, REDIRECT, signedInCookie } from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// The official MCP TypeScript SDK client (1.x) against this authorization server: discovery from
// the protected resource metadata, dynamic registration, authorization with PKCE and resource,
// token exchange and refresh. The "browser" is the fetch-driven consent page of support/oauth-flow.ts.

class InMemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** The redirect back from the consent page, once redirectToAuthorization ran. */
  back: URL | undefined;
  authorizationUrl: URL | undefined;
  readonly cookie: string;

  constructor(cookie: string) {
    this.cookie = cookie;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'sdk-state';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    this.back = await consentInBrowser(url.href, this.cookie);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('the MCP TypeScript SDK client', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('discovers, registers, authorizes, exchanges and refreshes', async () => {
    const provider = new InMemoryProvider(await signedInCookie(p));
    const serverUrl = `${p.url}/mcp`;
    const seen: string[] = [];
    const fetchFn = (input: string | URL | Request, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      seen.push(`${init?.method ?? 'GET'} ${url.replace(p.url, '')}`);
      return fetch(input, init);
    };

    assert.equal(await auth(provider, { serverUrl, fetchFn }), 'REDIRECT');
    // Discovery: RFC 9728 path-aware metadata for /mcp, then RFC 8414 for the issuer; no live /mcp.
    assert.deepEqual(seen.slice(0, 3), [
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-authorization-server',
      'POST /oauth/register',
    ]);
    assert.match(String(provider.info?.client_id), /^dcr_/);
    const asked = provider.authorizationUrl!;
    assert.equal(asked.origin + asked.pathname, `${p.url}/oauth/authorize`);
    assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(asked.searchParams.get('resource'), serverUrl);
    assert.equal(
      asked.searchParams.get('scope'),
      'ppx:read ppx:query ppx:propose_update ppx:confirm_update ppx:export',
    );

    const back = provider.back!;
    assert.equal(back.searchParams.get('state'), 'sdk-state');
    assert.equal(back.searchParams.get('iss'), p.url);
    const code = back.searchParams.get('code')!;
    assert.equal(await auth(provider, { serverUrl, authorizationCode: code, fetchFn }), 'AUTHORIZED');
    const first = provider.saved!;
    assert.equal(first.token_type, 'Bearer');
    assert.ok(first.refresh_token);
    assert.equal(first.scope, 'ppx:read ppx:query ppx:propose_update ppx:confirm_update ppx:export');

    // The access token is for the MCP resource (introspected by the subject).
    const intro = await postForm(
      `${p.url}/oauth/introspect`,
      { token: first.access_token },
      { authorization: `Bearer ${p.subjectToken}` },
    );
    assert.equal(intro.json.active, true);
    assert.equal(intro.json.aud, serverUrl);

    // With tokens stored, auth() refreshes (rotation: a new refresh token).
    assert.equal(await auth(provider, { serverUrl, fetchFn }), 'AUTHORIZED');
    const second = provider.saved!;
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.ok(seen.some((s) => s === 'POST /oauth/token'));
    if (process.env['SHOW_SDK_CALLS']) console.log(seen);
    const again = await postForm(
      `${p.url}/oauth/introspect`,
      { token: second.access_token },
      { authorization: `Bearer ${p.subjectToken}` },
    );
    assert.equal(again.json.aud, serverUrl, 'the audience survives the refresh');
  });

  it("after the person ends its access, the refresh says so, in the SDK error's words", async () => {
    // Issue 22 item 16: the refresh used to say "the authorization code or refresh token is not
    // valid for this client", which reads like a bug of the client.
    const provider = new InMemoryProvider(await signedInCookie(p));
    const serverUrl = `${p.url}/mcp`;
    const refusals: string[] = [];
    const fetchFn = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/oauth/token') && res.status === 400) refusals.push(await res.clone().text());
      return res;
    };
    assert.equal(await auth(provider, { serverUrl, fetchFn }), 'REDIRECT');
    const code = provider.back!.searchParams.get('code')!;
    assert.equal(await auth(provider, { serverUrl, authorizationCode: code, fetchFn }), 'AUTHORIZED');
    const intro = await postForm(
      `${p.url}/oauth/introspect`,
      { token: provider.saved!.access_token },
      { authorization: `Bearer ${p.subjectToken}` },
    );
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: intro.json.grant_id },
    });
    assert.equal(revoked.status, 200, revoked.text);

    // The SDK hands the description on as its error's message: what an agent shows its user.
    await assert.rejects(auth(provider, { serverUrl, fetchFn }), {
      name: 'InvalidGrantError',
      message: 'the person ended this access; ask the person to grant access again',
    });
    // (the SDK tries once more; this provider cannot forget its tokens: no invalidateCredentials)
    assert.ok(refusals.length >= 1);
    for (const refusal of refusals) {
      assert.deepEqual(JSON.parse(refusal), {
        error: 'invalid_grant',
        error_description: 'the person ended this access; ask the person to grant access again',
      });
    }
  });
});
