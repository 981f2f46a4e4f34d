import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  consentInBrowser,
  REDIRECT,
  register,
  signedInCookie,
  startDevProvider,
} from '../../../test/support/oauth-flow.ts';
import type { TestProvider } from '../../../test/support/provider.ts';
import {
  authorizationUrl,
  clientMetadataDocument,
  discover,
  exchangeCode,
  Grant,
  PpxClient,
} from '../src/index.ts';

// The OAuth clients the library speaks for besides a registered public one: a confidential client
// (client_secret_basic and client_secret_post) and a client named by its client ID metadata document.

describe('@ppx-provider/client: confidential clients and client ID metadata documents', () => {
  let p: TestProvider;
  let cookie: string;
  let docs: Server;
  let docsUrl: string;
  const served = new Map<string, unknown>();
  before(async () => {
    p = await startDevProvider();
    cookie = await signedInCookie(p);
    docs = createServer((req, res) => {
      const body = served.get(req.url ?? '');
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  });
  after(async () => {
    await p.close();
    docs.closeAllConnections();
    await new Promise((r) => docs.close(r));
  });

  async function codeFlow(c: PpxClient) {
    const pending = await authorizationUrl(c, { redirectUri: REDIRECT, scope: 'ppx:read ppx:query' });
    assert.ok(pending.ok, JSON.stringify(pending));
    const tokens = await exchangeCode(c, await consentInBrowser(pending.value.url, cookie), pending.value);
    assert.ok(tokens.ok, JSON.stringify(tokens));
    const grant = new Grant(c, tokens.value.grantId);
    const summary = await grant.summary();
    assert.ok(summary.ok, JSON.stringify(summary));
    const fresh = await c.refresh(grant.grantId);
    assert.ok(fresh.ok, JSON.stringify(fresh));
  }

  for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
    it(`a confidential client authenticating with ${method}`, async () => {
      const r = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: method });
      assert.equal(r.status, 201);
      const provider = await discover(p.url);
      assert.ok(provider.ok);
      await codeFlow(
        new PpxClient(provider.value, {
          clientId: r.json.client_id,
          clientSecret: r.json.client_secret,
          authMethod: method,
        }),
      );
    });
  }

  it('a confidential client with a wrong secret gets invalid_client as a value', async () => {
    const r = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const provider = await discover(p.url);
    assert.ok(provider.ok);
    const c = new PpxClient(provider.value, { clientId: r.json.client_id, clientSecret: 'wrong' });
    const pending = await authorizationUrl(c, { redirectUri: REDIRECT, scope: 'ppx:read' });
    assert.ok(pending.ok);
    const t = await exchangeCode(c, await consentInBrowser(pending.value.url, cookie), pending.value);
    assert.equal(!t.ok && t.error.code, 'invalid_client');
  });

  it('a public client named by its client ID metadata document', async () => {
    const id = `${docsUrl}/client.json`;
    served.set(
      '/client.json',
      clientMetadataDocument({ client_id: id, client_name: 'Doc app', redirect_uris: [REDIRECT] }),
    );
    const provider = await discover(p.url);
    assert.ok(provider.ok);
    assert.equal(provider.value.oauth?.client_id_metadata_document_supported, true);
    await codeFlow(new PpxClient(provider.value, { clientId: id }));
  });
});
