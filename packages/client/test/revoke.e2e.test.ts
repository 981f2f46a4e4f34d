import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approve, readEffective, statusOf } from '../../../test/support/consent-flow.ts';
import {
  consentInBrowser,
  publicClient,
  REDIRECT,
  signedInCookie,
} from '../../../test/support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../test/support/provider.ts';
import { authorizationUrl, discover, exchangeCode, PpxClient, type Provider } from '../src/index.ts';

// The app ending its own access (issue 28): RFC 7009 revocation when the provider names an
// endpoint, the consent-v2 `POST /v1/consent/revoke` otherwise; the tokens leave the store; an
// access that has already ended is not an error.

describe('@ppx-provider/client: the app revokes its own access', () => {
  let p: TestProvider;
  let provider: Provider;
  before(async () => {
    p = await startTestProvider();
    const found = await discover(p.url);
    assert.ok(found.ok, JSON.stringify(found));
    provider = found.value;
  });
  after(() => p.close());

  /** The same provider as a client sees one without an OAuth authorization server. */
  const consentOnly = (): Provider => {
    const { oauth: _oauth, ...rest } = provider;
    return rest;
  };

  async function granted(c: PpxClient) {
    const pending = await c.requestGrant({
      subject_id: p.subjectId,
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: ['read'],
      redirect_uri: 'http://localhost:5173/callback',
    });
    assert.ok(pending.ok, JSON.stringify(pending));
    assert.equal((await approve(p, pending.value.grantRequestId)).status, 200);
    const tokens = await c.exchange(pending.value);
    assert.ok(tokens.ok, JSON.stringify(tokens));
    return tokens.value;
  }

  for (const [label, from] of [
    ['at the RFC 7009 revocation endpoint', () => provider],
    ['with consent-v2 when the provider has no OAuth metadata', consentOnly],
  ] as const) {
    it(`a consent-v2 grant revoked ${label}: the grant ends, the tokens leave the store`, async () => {
      const c = new PpxClient(from(), { clientId: 'fragrance-demo' });
      const t = await granted(c);
      assert.equal((await readEffective(p, t.accessToken)).status, 200);
      const r = await c.revoke(t.grantId);
      assert.deepEqual(r, { ok: true, value: undefined });
      assert.equal(await c.store.get(t.grantId), undefined);
      assert.equal(await statusOf(p, t.grantId), 'revoked');
      const read = await readEffective(p, t.accessToken);
      assert.equal(read.status, 401, read.text);
      assert.equal(read.json.error, 'grant_revoked');
    });
  }

  for (const [label, from] of [
    ['RFC 7009', () => provider],
    ['consent-v2', consentOnly],
  ] as const) {
    it(`revoking a grant the person already ended is not an error (${label})`, async () => {
      const c = new PpxClient(from(), { clientId: 'fragrance-demo' });
      const t = await granted(c);
      const byPerson = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: t.grantId },
      });
      assert.equal(byPerson.status, 200, byPerson.text);
      assert.deepEqual(await c.revoke(t.grantId), { ok: true, value: undefined });
      assert.equal(await c.store.get(t.grantId), undefined);
    });
  }

  /** A public client the person approved in the browser, with its tokens. */
  async function connectedPublicClient() {
    const cookie = await signedInCookie(p);
    const c = new PpxClient(provider, { clientId: await publicClient(p) });
    const pending = await authorizationUrl(c, { redirectUri: REDIRECT, scope: 'ppx:read' });
    assert.ok(pending.ok);
    const tokens = await exchangeCode(c, await consentInBrowser(pending.value.url, cookie), pending.value);
    assert.ok(tokens.ok, JSON.stringify(tokens));
    return { c, tokens };
  }

  it('an OAuth public client revokes its tokens; refreshing them afterwards is grant_revoked', async () => {
    const { c, tokens } = await connectedPublicClient();
    const kept = tokens.value;
    assert.deepEqual(await c.revoke(kept.grantId), { ok: true, value: undefined });
    assert.equal(await statusOf(p, kept.grantId), 'revoked');
    // The refresh token it held is dead too: put it back and try.
    await c.store.set(kept);
    const again = await c.refresh(kept.grantId);
    assert.equal(!again.ok && again.error.code, 'grant_revoked', JSON.stringify(again));
  });

  it("an OAuth grant the person ended: the refresh is grant_revoked, in the provider's words", async () => {
    const { c, tokens } = await connectedPublicClient();
    const byPerson = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: tokens.value.grantId },
    });
    assert.equal(byPerson.status, 200, byPerson.text);
    const r = await c.refresh(tokens.value.grantId);
    assert.equal(!r.ok && r.error.code, 'grant_revoked', JSON.stringify(r));
    assert.match(!r.ok ? r.error.description : '', /the person ended this access/);
    assert.equal(await c.store.get(tokens.value.grantId), undefined);
  });

  it('when the provider cannot be reached the tokens are kept, so the app can try again', async () => {
    const unreachable: Provider = {
      ...provider,
      oauth: { ...provider.oauth!, revocation_endpoint: 'http://127.0.0.1:9/oauth/revoke' },
    };
    const c = new PpxClient(unreachable, { clientId: 'fragrance-demo' });
    const t = await granted(c);
    const r = await c.revoke(t.grantId);
    assert.equal(!r.ok && r.error.code, 'network_error');
    assert.ok(await c.store.get(t.grantId));
    assert.equal(await statusOf(p, t.grantId), 'active');
  });

  it('revoking a grant the client holds no tokens for is not_found', async () => {
    const c = new PpxClient(provider, { clientId: 'fragrance-demo' });
    const r = await c.revoke('ppx:grant:nothing-here');
    assert.equal(!r.ok && r.error.code, 'not_found');
  });
});
