import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerClient } from '../../../../src/operations/accounts/clients.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';

// registerClient (operator registration: `ppx client add`, the demo seed): a browser is sent to a
// redirect URI with an authorization code, so only absolute http(s) URLs without a fragment or
// credentials are accepted, whoever registers the client.

describe('operator client registration', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('accepts http(s) redirect URIs', async () => {
    const r = await registerClient(p.deps, {
      client_id: 'good-app',
      name: 'Good app',
      redirect_uris: ['https://app.example/cb', 'http://localhost:5173/callback'],
    });
    assert.ok(r.ok);
  });

  for (const uri of [
    'javascript:alert(1)',
    'data:text/html,x',
    'ftp://files.example/cb',
    'https://app.example/cb#frag',
    'https://user:pw@app.example/cb',
    '/relative/cb',
  ]) {
    it(`refuses ${uri} with invalid_request, registering nothing`, async () => {
      const r = await registerClient(p.deps, { client_id: 'bad-app', name: 'Bad app', redirect_uris: [uri] });
      assert.equal(r.ok, false);
      assert.equal(r.ok ? undefined : r.error.code, 'invalid_request');
      assert.equal(await p.deps.store.getClient('bad-app'), undefined);
    });
  }
});
