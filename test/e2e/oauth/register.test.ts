import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REDIRECT, register } from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Dynamic client registration (RFC 7591).

describe('POST /oauth/register', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('registers a public client (201, metadata echoed, stored as dynamic)', async () => {
    const r = await register(p, {
      redirect_uris: [REDIRECT, 'https://app.example/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'An MCP client',
      unknown_field: 'ignored',
    });
    assert.equal(r.status, 201);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.match(r.json.client_id, /^dcr_[A-Za-z0-9_-]{22}$/);
    assert.equal(typeof r.json.client_id_issued_at, 'number');
    assert.equal(r.json.client_secret, undefined);
    assert.deepEqual(r.json.redirect_uris, [REDIRECT, 'https://app.example/cb']);
    assert.equal(r.json.token_endpoint_auth_method, 'none');
    assert.deepEqual(r.json.grant_types, ['authorization_code', 'refresh_token']);
    assert.deepEqual(r.json.response_types, ['code']);
    assert.equal(r.json.client_name, 'An MCP client');
    assert.equal(r.json.unknown_field, undefined, 'RFC 7591 §2: unknown metadata is ignored');
    const stored = await p.deps.store.getClient(r.json.client_id);
    assert.equal(stored?.source, 'dynamic');
    assert.equal(stored?.kind, 'public');
    assert.equal(stored?.metadata?.['client_name'], 'An MCP client');
  });

  it('registers a confidential client with a secret (default method client_secret_basic)', async () => {
    const r = await register(p, { redirect_uris: ['https://app.example/cb'] });
    assert.equal(r.status, 201);
    assert.equal(r.json.token_endpoint_auth_method, 'client_secret_basic');
    assert.equal(typeof r.json.client_secret, 'string');
    assert.ok(r.json.client_secret.length >= 43);
    assert.equal(r.json.client_secret_expires_at, 0);
    const stored = await p.deps.store.getClient(r.json.client_id);
    assert.equal(stored?.kind, 'confidential');
    assert.notEqual(stored?.secret_hash, r.json.client_secret, 'only a hash is stored');
  });

  const invalid: [string, unknown, string][] = [
    ['no redirect_uris', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['empty redirect_uris', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['a relative redirect URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    ['http on a public host', { redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example/cb#frag'] }, 'invalid_redirect_uri'],
    ['a custom scheme', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['redirect_uris not a list', { redirect_uris: 'https://app.example/cb' }, 'invalid_redirect_uri'],
    [
      'an unknown auth method',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    [
      'an unsupported grant type',
      { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] },
      'invalid_client_metadata',
    ],
    [
      'the implicit response type',
      { redirect_uris: [REDIRECT], response_types: ['token'] },
      'invalid_client_metadata',
    ],
    ['a non-string client_name', { redirect_uris: [REDIRECT], client_name: 42 }, 'invalid_client_metadata'],
    ['a JSON array', [REDIRECT], 'invalid_client_metadata'],
  ];
  for (const [what, body, error] of invalid) {
    it(`refuses ${what}: 400 ${error}`, async () => {
      const r = await register(p, body as Record<string, unknown>);
      assert.equal(r.status, 400);
      assert.equal(r.json.error, error);
      assert.equal(typeof r.json.error_description, 'string');
    });
  }

  it('refuses a body that is not JSON', async () => {
    const r = await fetch(`${p.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_client_metadata');
  });

  it('accepts loopback http for native apps', async () => {
    for (const uri of ['http://127.0.0.1:3000/cb', 'http://localhost/cb', 'http://[::1]:8080/cb']) {
      const r = await register(p, { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      assert.equal(r.status, 201, uri);
    }
  });
});
