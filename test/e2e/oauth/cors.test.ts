import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { codeFlow, postForm, publicClient, signedInCookie } from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// CORS of the authorization server (surfaces/shared/cors.ts, the provider's one policy): browser-based clients call the
// metadata and back-channel endpoints from any origin and read the DPoP nonce, so every answer of
// those (a token, an error, a refusal made before the handler) carries the open CORS headers, and
// a preflight is answered; introspection answers authenticated callers only and carries none.

const ORIGIN = { origin: 'https://app.example' };

function assertOpen(headers: Headers, what: string): void {
  assert.equal(headers.get('access-control-allow-origin'), '*', what);
  assert.ok(headers.get('access-control-expose-headers')?.split(', ').includes('DPoP-Nonce'), what);
  assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
}

describe('OAuth CORS', () => {
  let p: TestProvider;
  let limited: TestProvider;
  let clientId: string;
  before(async () => {
    p = await startTestProvider();
    limited = await startTestProvider({ rateLimit: 1 });
    clientId = await publicClient(p);
  });
  after(async () => {
    await p.close();
    await limited.close();
  });

  it('a token, its refresh and their refusals carry the open CORS headers, and no-store', async () => {
    const cookie = await signedInCookie(p);
    const { tokens } = await codeFlow(p, cookie, clientId, { resource: p.url });
    assert.equal(tokens.status, 200, tokens.text);
    assertOpen(tokens.headers, 'code exchange');
    const url = `${p.url}/oauth/token`;
    const refresh = { grant_type: 'refresh_token', client_id: clientId };
    const rotated = await postForm(url, { ...refresh, refresh_token: tokens.json.refresh_token }, ORIGIN);
    assert.equal(rotated.status, 200, rotated.text);
    assertOpen(rotated.headers, 'rotation');
    assert.equal(rotated.headers.get('cache-control'), 'no-store');
    assert.equal(rotated.headers.get('pragma'), 'no-cache');
    assert.equal(rotated.headers.get('content-type'), 'application/json');
    // The spent token again: refused, the same headers.
    const reused = await postForm(url, { ...refresh, refresh_token: tokens.json.refresh_token }, ORIGIN);
    assert.equal(reused.status, 400, reused.text);
    assertOpen(reused.headers, 'reuse');
    assert.equal(reused.headers.get('cache-control'), 'no-store');
    const unknown = await postForm(url, { ...refresh, client_id: 'nobody', refresh_token: 'x' });
    assert.equal(unknown.status, 401, unknown.text);
    assertOpen(unknown.headers, 'unknown client');
    assert.match(unknown.headers.get('www-authenticate') ?? '', /^Basic /);
  });

  it('revocation, disconnection and registration answers carry them; introspection does not', async () => {
    const revoked = await postForm(`${p.url}/oauth/revoke`, { token: 'x', client_id: clientId }, ORIGIN);
    assert.equal(revoked.status, 200, revoked.text);
    assertOpen(revoked.headers, 'revoke');
    assert.equal(revoked.headers.get('cache-control'), 'no-store');
    const disconnect = await postForm(`${p.url}/oauth/package/disconnect`, {
      token: 'x',
      client_id: clientId,
    });
    assertOpen(disconnect.headers, 'disconnect');
    const registered = await fetch(`${p.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ORIGIN },
      body: '{}',
    });
    assert.equal(registered.status, 400);
    assertOpen(registered.headers, 'register');
    const introspected = await postForm(
      `${p.url}/oauth/introspect`,
      { token: 'x', client_id: clientId },
      ORIGIN,
    );
    assert.equal(introspected.status, 401, introspected.text);
    assert.equal(introspected.headers.get('access-control-allow-origin'), null);
    assert.equal(introspected.headers.get('x-content-type-options'), 'nosniff');
  });

  it('a preflight is answered, and a rate-limited refusal carries the headers too', async () => {
    const pre = await fetch(`${p.url}/oauth/token`, {
      method: 'OPTIONS',
      headers: {
        ...ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'dpop',
      },
    });
    assert.equal(pre.status, 204);
    // A preflight says what may be sent; what a script may read is said on the answer itself.
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    assert.equal(pre.headers.get('access-control-allow-credentials'), null);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /DPoP/);
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
    const url = `${limited.url}/oauth/token`;
    let refused: Awaited<ReturnType<typeof postForm>> | undefined;
    for (let i = 0; i < 5 && refused === undefined; i++) {
      const r = await postForm(url, { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'c' });
      if (r.status === 429) refused = r;
    }
    assert.ok(refused, 'the limit of one request refuses a later one');
    assertOpen(refused.headers, 'rate limited');
  });
});
