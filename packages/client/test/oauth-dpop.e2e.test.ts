import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approve } from '../../../test/support/consent-flow.ts';
import {
  consentInBrowser,
  publicClient,
  REDIRECT,
  signedInCookie,
} from '../../../test/support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../../test/support/provider.ts';
import { authorizationUrl, DpopKey, discover, exchangeCode, Grant, PpxClient } from '../src/index.ts';

// The client library's OAuth 2.1 code flow for a public client, and DPoP-bound tokens when the
// provider offers DPoP (docs/oauth.md), against a started provider.

describe('@ppx-provider/client: OAuth and DPoP', () => {
  let p: TestProvider;
  let cookie: string;
  before(async () => {
    p = await startTestProvider();
    cookie = await signedInCookie(p);
  });
  after(() => p.close());

  async function client(clientId: string, dpop?: DpopKey) {
    const provider = await discover(p.url);
    assert.ok(provider.ok);
    return new PpxClient(provider.value, { clientId, ...(dpop ? { dpop } : {}) });
  }

  it('public client: authorize URL → the person allows → code exchanged → reads; refresh rotates', async () => {
    const c = await client(await publicClient(p));
    const pending = await authorizationUrl(c, { redirectUri: REDIRECT, scope: 'ppx:read ppx:query' });
    assert.ok(pending.ok, JSON.stringify(pending));
    const back = await consentInBrowser(pending.value.url, cookie);
    const tokens = await exchangeCode(c, back, pending.value);
    assert.ok(tokens.ok, JSON.stringify(tokens));
    assert.equal(tokens.value.via, 'oauth');
    const grant = new Grant(c, tokens.value.grantId);
    const first = await grant.summary();
    assert.ok(first.ok, JSON.stringify(first));
    const fresh = await c.refresh(grant.grantId);
    assert.ok(fresh.ok, JSON.stringify(fresh));
    assert.notEqual(fresh.value.refreshToken, tokens.value.refreshToken);
    assert.ok((await grant.summary()).ok);
  });

  it('a return with another state is refused before any exchange', async () => {
    const c = await client(await publicClient(p));
    const pending = await authorizationUrl(c, { redirectUri: REDIRECT, scope: 'ppx:read' });
    assert.ok(pending.ok);
    const r = await exchangeCode(c, `${REDIRECT}?code=x&state=other`, pending.value);
    assert.equal(!r.ok && r.error.code, 'state_mismatch');
  });

  it('with a DPoP key: consent-v2 tokens bound to it, reads with proofs, bound refresh', async () => {
    const key = await DpopKey.generate();
    const c = await client('fragrance-demo', key);
    const pending = await c.requestGrant({
      subject_id: p.subjectId,
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: ['read', 'query'],
      redirect_uri: 'http://localhost:5173/callback',
    });
    assert.ok(pending.ok);
    assert.equal((await approve(p, pending.value.grantRequestId)).status, 200);
    const tokens = await c.exchange(pending.value);
    assert.ok(tokens.ok, JSON.stringify(tokens));
    assert.equal(tokens.value.tokenType, 'DPoP');
    const grant = new Grant(c, tokens.value.grantId);
    const read = await grant.effective();
    assert.ok(read.ok, JSON.stringify(read));
    const fresh = await c.refresh(grant.grantId);
    assert.ok(fresh.ok, JSON.stringify(fresh));
    assert.equal(fresh.value.tokenType, 'DPoP');

    // The same tokens without the key: the bound token is refused, as a value.
    const thief = new PpxClient(c.provider, { clientId: 'fragrance-demo', store: c.store });
    const stolen = await new Grant(thief, grant.grantId).effective();
    assert.equal(stolen.ok, false);
  });

  it('DPoP with nonces on: the proof is retried with the nonce the provider gave', async () => {
    const q = await startTestProvider({ env: { PPX_DPOP_NONCE: '1' } });
    try {
      const provider = await discover(q.url);
      assert.ok(provider.ok);
      const c = new PpxClient(provider.value, { clientId: 'fragrance-demo', dpop: await DpopKey.generate() });
      const pending = await c.requestGrant({
        subject_id: q.subjectId,
        purposes: ['recommendation'],
        allowed_domains: ['fragrance'],
        allowed_namespaces: ['core'],
        allowed_operations: ['read'],
        redirect_uri: 'http://localhost:5173/callback',
      });
      assert.ok(pending.ok);
      assert.equal((await approve(q, pending.value.grantRequestId)).status, 200);
      const tokens = await c.exchange(pending.value);
      assert.ok(tokens.ok, JSON.stringify(tokens));
      assert.equal(tokens.value.tokenType, 'DPoP');
      assert.ok((await new Grant(c, tokens.value.grantId).summary()).ok);
    } finally {
      await q.close();
    }
  });
});
