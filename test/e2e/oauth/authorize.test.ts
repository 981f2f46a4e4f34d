import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isPrivate } from '../../../src/operations/oauth/client-document.ts';
import {
  codeRequest,
  consentInBrowser,
  get,
  pkce,
  publicClient,
  REDIRECT,
  signedInCookie,
  startDevProvider,
} from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// The authorization endpoint's error handling (RFC 6749 §4.1.2.1): no redirect until the client
// and redirect_uri are verified; after that, errors go back to the client with state and iss.

function assertErrorPage(r: Response) {
  assert.equal(r.status, 400);
  assert.equal(r.headers.get('location'), null, 'never redirects to an unverified URI');
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
}

function assertRedirectError(r: Response, p: TestProvider, error: string, description?: RegExp) {
  assert.equal(r.status, 302);
  const to = new URL(r.headers.get('location')!);
  assert.equal(`${to.origin}${to.pathname}`, REDIRECT);
  assert.equal(to.searchParams.get('error'), error);
  assert.equal(to.searchParams.get('state'), 'state-123');
  assert.equal(to.searchParams.get('iss'), p.url, 'RFC 9207');
  assert.equal(to.searchParams.get('code'), null);
  if (description) assert.match(to.searchParams.get('error_description') ?? '', description);
}

describe('GET /oauth/authorize', () => {
  let p: TestProvider;
  let clientId: string;
  const { challenge } = pkce();
  before(async () => {
    p = await startTestProvider();
    clientId = await publicClient(p);
  });
  after(() => p.close());

  it('parameters named like built-in properties are parameters like any other, not a 500', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const alone = await get(`${p.url}/oauth/authorize?${name}=x`);
      assertErrorPage(alone);
      assert.match(await alone.text(), /client_id is missing/, name);
      const cookie = await signedInCookie(p);
      const r = await get(codeRequest(p, clientId, challenge, { [name]: 'x' }), cookie);
      assert.equal(r.status, 302, `${name}: ${r.status}`);
      assert.match(r.headers.get('location') ?? '', /^\/consent\//, name);
    }
  });

  it('unknown client: an error page, no redirect', async () => {
    assertErrorPage(await get(codeRequest(p, 'no-such-client', challenge)));
    assertErrorPage(await get(codeRequest(p, clientId, challenge, { client_id: undefined })));
  });

  it('a redirect_uri not registered: an error page, no redirect (missing: redirect-uri.test.ts)', async () => {
    assertErrorPage(
      await get(codeRequest(p, clientId, challenge, { redirect_uri: 'https://evil.example/cb' })),
    );
    assertErrorPage(await get(codeRequest(p, clientId, challenge, { redirect_uri: `${REDIRECT}/` })));
  });

  it('missing PKCE, or plain: back to the client with invalid_request', async () => {
    assertRedirectError(
      await get(codeRequest(p, clientId, challenge, { code_challenge: undefined })),
      p,
      'invalid_request',
    );
    assertRedirectError(
      await get(codeRequest(p, clientId, challenge, { code_challenge_method: 'plain' })),
      p,
      'invalid_request',
      /S256/,
    );
    assertRedirectError(
      await get(codeRequest(p, clientId, challenge, { code_challenge_method: undefined })),
      p,
      'invalid_request',
    );
  });

  it('a resource that is not this provider: invalid_target (RFC 8707)', async () => {
    const r = await get(codeRequest(p, clientId, challenge, { resource: 'https://other.example/mcp' }));
    assertRedirectError(r, p, 'invalid_target');
  });

  it('other request errors go back to the client', async () => {
    assertRedirectError(
      await get(codeRequest(p, clientId, challenge, { response_type: 'token' })),
      p,
      'unsupported_response_type',
    );
    assertRedirectError(
      await get(codeRequest(p, clientId, challenge, { scope: 'ppx:read admin' })),
      p,
      'invalid_scope',
    );
    const detail = {
      type: 'ppx_grant',
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['fragrance'],
      allowed_operations: ['read'],
    };
    assertRedirectError(
      await get(
        codeRequest(p, clientId, challenge, {
          authorization_details: JSON.stringify([detail, { ...detail, detail_id: 'b' }]),
        }),
      ),
      p,
      'invalid_authorization_details',
      /^each element of a grant package needs a detail_id$/,
    );
    assertRedirectError(
      await get(
        codeRequest(p, clientId, challenge, {
          authorization_details: JSON.stringify([{ ...detail, type: 'payment' }]),
        }),
      ),
      p,
      'invalid_authorization_details',
    );
    assertRedirectError(
      await get(codeRequest(p, clientId, challenge, { authorization_details: '{not json' })),
      p,
      'invalid_authorization_details',
    );
  });

  it('a valid request without a session goes to the sign-in page and comes back', async () => {
    const url = codeRequest(p, clientId, challenge);
    const r = await get(url);
    assert.equal(r.status, 302);
    const signin = new URL(r.headers.get('location')!, p.url);
    assert.equal(signin.pathname, '/signin');
    const back = signin.searchParams.get('return_to')!;
    assert.equal(p.url + back, url);
    assert.ok(back.length <= 500, `return_to is ${back.length} characters; a plain request stays short`);
    const page = await get(signin.href);
    assert.equal(page.status, 200);
    assert.ok((await page.text()).includes('name="return_to"'));
  });

  it('a request too long to carry through sign-in is refused with a page, not lost on the way', async () => {
    for (const size of [9000, 15000]) {
      const url = `${codeRequest(p, clientId, challenge)}&nonce=${'n'.repeat(size)}`;
      const r = await get(url);
      assert.equal(r.status, 400, `${size}: ${r.status}`);
      assert.match(await r.text(), /too long/);
    }
  });

  it('authorization_details unknown to this provider go back as invalid_authorization_details', async () => {
    const cookie = await signedInCookie(p);
    const detail = {
      type: 'ppx_grant',
      purposes: ['recommendation'],
      allowed_domains: ['x'],
      allowed_namespaces: ['nope'],
      allowed_operations: ['read'],
    };
    const r = await get(
      codeRequest(p, clientId, challenge, { authorization_details: JSON.stringify([detail]) }),
      cookie,
    );
    assertRedirectError(r, p, 'invalid_authorization_details', /nope/);
  });

  it('a rejected consent returns error=access_denied with state and iss', async () => {
    const cookie = await signedInCookie(p);
    const back = await consentInBrowser(codeRequest(p, clientId, challenge), cookie, 'reject');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'state-123');
    assert.equal(back.searchParams.get('iss'), p.url);
  });
});

describe('client ID metadata documents', () => {
  let docs: Server;
  let docsUrl: string;
  let dev: TestProvider;
  let prod: TestProvider;
  const served = new Map<string, unknown>();
  before(async () => {
    docs = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/client.json' }).end();
        return;
      }
      if (req.url === '/huge.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(70_000)}"`);
        return;
      }
      const body = served.get(req.url ?? '');
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
    dev = await startDevProvider();
    prod = await startTestProvider();
  });
  after(async () => {
    await dev.close();
    await prod.close();
    docs.closeAllConnections();
    await new Promise((r) => docs.close(r));
  });

  it('with the dev flag, a local http document is fetched, checked and cached', async () => {
    const id = `${docsUrl}/client.json`;
    served.set('/client.json', { client_id: id, client_name: 'Doc client', redirect_uris: [REDIRECT] });
    const cookie = await signedInCookie(dev);
    const { challenge } = pkce();
    const r = await get(codeRequest(dev, id, challenge), cookie);
    assert.equal(r.status, 302);
    assert.match(r.headers.get('location')!, /^\/consent\/gr_/);
    const cached = await dev.deps.store.getClient(id);
    assert.equal(cached?.source, 'metadata_document');
    assert.equal(cached?.kind, 'public');
    assert.equal(cached?.name, 'Doc client');
  });

  it('refuses documents that do not describe the URL, redirects, oversize bodies, missing ones', async () => {
    const { challenge } = pkce();
    served.set('/other.json', { client_id: 'https://someone.else/client.json', redirect_uris: [REDIRECT] });
    served.set('/no-uris.json', { client_id: `${docsUrl}/no-uris.json` });
    served.set('/secret.json', {
      client_id: `${docsUrl}/secret.json`,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    for (const path of [
      '/other.json',
      '/no-uris.json',
      '/secret.json',
      '/redirect',
      '/huge.json',
      '/missing.json',
    ]) {
      assertErrorPage(await get(codeRequest(dev, `${docsUrl}${path}`, challenge)));
    }
  });

  it('without the flag: https only, and never a private or loopback address', async () => {
    const { challenge } = pkce();
    const id = `${docsUrl}/client.json`;
    served.set('/client.json', { client_id: id, redirect_uris: [REDIRECT] });
    assertErrorPage(await get(codeRequest(prod, id, challenge)));
    const page = await get(codeRequest(prod, 'https://127.0.0.1:1/client.json', challenge));
    assertErrorPage(page);
    assert.match(await page.text(), /private, loopback or link-local/);
    assertErrorPage(await get(codeRequest(prod, 'https://localhost:1/client.json', challenge)));
  });

  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
    ]) {
      assert.equal(isPrivate(a), true, a);
    }
    for (const a of ['93.184.216.34', '2606:4700::1111', '8.8.8.8']) assert.equal(isPrivate(a), false, a);
  });
});
