import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Every OAuth endpoint refuses malformed bodies, wrong content types, oversized inputs and
// unknown clients with the OAuth error code that fits, as JSON, never a 500.

const ENDPOINTS = ['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/package/disconnect'];
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function assertOAuthError(
  r: { status: number; json: { error?: string; error_description?: string }; text: string },
  status: number,
  error: string,
) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json?.error, error, r.text);
  assert.ok((r.json?.error_description ?? '').length > 0);
  assert.doesNotMatch(r.text, /\bat \S+ \(|node:internal|\/src\//);
}

describe('OAuth endpoints refuse bad input', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  for (const path of ENDPOINTS) {
    describe(path, () => {
      it('a text/plain body is 415 unsupported_media_type', async () => {
        const r = await api(p.url, path, {
          method: 'POST',
          body: 'token=x',
          headers: { 'content-type': 'text/plain' },
        });
        assertOAuthError(r, 415, 'unsupported_media_type');
      });

      it('malformed JSON is 400 invalid_request', async () => {
        const r = await api(p.url, path, {
          method: 'POST',
          body: '{"token":',
          headers: { 'content-type': 'application/json' },
        });
        assertOAuthError(r, 400, 'invalid_request');
      });

      it('a repeated parameter is 400 invalid_request', async () => {
        const r = await api(p.url, path, {
          method: 'POST',
          body: 'token=a&token=b&client_id=fragrance-demo',
          headers: FORM,
        });
        assertOAuthError(r, 400, 'invalid_request');
      });

      it('a parameter named like a built-in property is one parameter, not a repeated one', async () => {
        const r = await api(p.url, path, {
          method: 'POST',
          body: 'constructor=x&__proto__=y&client_id=no-such-client&token=t',
          headers: FORM,
        });
        assert.doesNotMatch(r.text, /appears more than once/);
        assertOAuthError(r, 401, 'invalid_client');
      });

      it('an oversized body is 413 payload_too_large and closes the connection', async () => {
        const r = await api(p.url, path, {
          method: 'POST',
          body: `token=${'x'.repeat(300 * 1024)}`,
          headers: FORM,
        });
        assertOAuthError(r, 413, 'payload_too_large');
        assert.equal(r.headers.get('connection'), 'close');
      });
    });
  }

  it('an unknown client is 401 invalid_client at the token, revoke and disconnect endpoints', async () => {
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/package/disconnect']) {
      const body = 'grant_type=refresh_token&refresh_token=x&token=x&client_id=nobody-here';
      const r = await api(p.url, path, { method: 'POST', body, headers: FORM });
      assertOAuthError(r, 401, 'invalid_client');
    }
  });

  it('the token endpoint refuses an unknown grant_type', async () => {
    const r = await api(p.url, '/oauth/token', {
      method: 'POST',
      body: 'grant_type=password&username=a&password=b&client_id=fragrance-demo',
      headers: FORM,
    });
    assertOAuthError(r, 400, 'unsupported_grant_type');
  });

  it('registration refuses a non-JSON content type and an oversized document', async () => {
    const wrong = await api(p.url, '/oauth/register', {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assertOAuthError(wrong, 415, 'unsupported_media_type');
    const big = await api(p.url, '/oauth/register', {
      method: 'POST',
      body: JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(300 * 1024) }),
    });
    assertOAuthError(big, 413, 'payload_too_large');
  });
});
