import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// RFC 8414 and RFC 9728 documents, field by field, and the discovery hooks around them.

describe('OAuth metadata', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('authorization server metadata (RFC 8414) is exact', async () => {
    const r = await api(p.url, '/.well-known/oauth-authorization-server');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    const b = p.url;
    assert.deepEqual(r.json, {
      issuer: b,
      authorization_endpoint: `${b}/oauth/authorize`,
      token_endpoint: `${b}/oauth/token`,
      registration_endpoint: `${b}/oauth/register`,
      revocation_endpoint: `${b}/oauth/revoke`,
      pdpp_package_disconnect_endpoint: `${b}/oauth/package/disconnect`,
      introspection_endpoint: `${b}/oauth/introspect`,
      jwks_uri: `${b}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'bearer'],
      scopes_supported: ['ppx:read', 'ppx:query', 'ppx:propose_update', 'ppx:confirm_update', 'ppx:export'],
      authorization_details_types_supported: ['ppx_grant'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      dpop_signing_alg_values_supported: [
        'ES256',
        'ES384',
        'ES512',
        'EdDSA',
        'Ed25519',
        'PS256',
        'PS384',
        'PS512',
        'RS256',
        'RS384',
        'RS512',
      ],
      service_documentation: `${b}/openapi.json`,
    });
    // The advertised JWKS exists.
    assert.equal((await api(p.url, '/.well-known/jwks.json')).status, 200);
  });

  for (const [path, resource] of [
    ['/.well-known/oauth-protected-resource', ''],
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ['/.well-known/oauth-protected-resource/a2a', '/a2a'],
  ] as const) {
    it(`protected resource metadata (RFC 9728) at ${path}`, async () => {
      const r = await api(p.url, path);
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, {
        resource: `${p.url}${resource}`,
        authorization_servers: [p.url],
        bearer_methods_supported: ['header'],
        scopes_supported: ['ppx:read', 'ppx:query', 'ppx:propose_update', 'ppx:confirm_update', 'ppx:export'],
        resource_name: 'PPX Reference Provider',
        dpop_signing_alg_values_supported: [
          'ES256',
          'ES384',
          'ES512',
          'EdDSA',
          'Ed25519',
          'PS256',
          'PS384',
          'PS512',
          'RS256',
          'RS384',
          'RS512',
        ],
        dpop_bound_access_tokens_required: false,
        // The MCP resource declares how coarse `freshness` is (PDPP MCP read profile, docs/mcp.md).
        ...(resource === '/mcp' ? { pdpp_freshness_granularity: 'PT1H' } : {}),
      });
    });
  }

  it('a 401 of the HTTP API names the protected resource metadata (RFC 9728 §5.1)', async () => {
    const bare = await api(p.url, '/v1/profile/summary');
    assert.equal(bare.status, 401);
    const prm = `resource_metadata="${p.url}/.well-known/oauth-protected-resource"`;
    assert.ok(bare.headers.get('www-authenticate')?.startsWith('Bearer '));
    assert.ok(bare.headers.get('www-authenticate')?.includes(prm));
    assert.ok(
      !bare.headers.get('www-authenticate')?.includes('error='),
      'no token, no error code (RFC 6750 §3.1)',
    );
    const bad = await api(p.url, '/v1/profile/summary', { token: 'x.y.z' });
    assert.equal(bad.status, 401);
    assert.ok(bad.headers.get('www-authenticate')?.includes(prm));
    assert.ok(bad.headers.get('www-authenticate')?.includes('error="invalid_token"'));
  });

  it('the discovery card advertises OAuth 2.1', async () => {
    const r = await api(p.url, '/.well-known/ppx-card.json');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.auth, {
      schemes: ['bearer', 'oauth2.1'],
      authorization_endpoint: `${p.url}/oauth/authorize`,
      token_endpoint: `${p.url}/oauth/token`,
      consent_endpoint: `${p.url}/consent/{grant_request_id}`,
    });
  });
});
