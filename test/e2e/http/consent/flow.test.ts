import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadSigningKey } from '../../../../src/auth/signing-keys.ts';
import { TokenService } from '../../../../src/auth/tokens.ts';
import {
  approve,
  ask,
  exchange,
  granted,
  grantsOf,
  REDIRECT,
  readEffective,
  refresh,
  statusOf,
} from '../../../support/consent-flow.ts';
import { assertInvalidTokenChallenge, assertNoInternalId } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// The consent flow end to end over real HTTP (WIRE-NOTES §2): request → approve → exchange →
// read → refresh → read; revocation is immediate; tokens are bound to this resource; single-use
// grants get no refresh token.

describe('consent flow over HTTP', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('happy path: request, approve, exchange, read, refresh, read again', async () => {
    const before = (await grantsOf(p)).length;

    // 1. request: 201, a pending public handle, a consent URL under this provider, a capability
    const pending = await ask(p);
    const r = pending.response;
    assert.equal(r.status, 201);
    assert.equal(r.headers.get('cache-control'), 'no-store', 'the request token is a secret');
    assert.equal(r.json.status, 'pending');
    assert.equal(typeof r.json.grant_request_id, 'string');
    assert.ok(r.json.grant_request_id.length > 0);
    assert.equal(typeof r.json.request_token, 'string');
    assert.ok(r.json.request_token.length >= 32, 'the request token is a 256-bit capability');
    assert.notEqual(r.json.request_token, r.json.grant_request_id);
    assert.ok(
      r.json.consent_url.startsWith(`${p.deps.provider.baseUrl}/consent/`),
      `consent_url ${r.json.consent_url} is not under ${p.deps.provider.baseUrl}`,
    );
    assert.ok(r.json.consent_url.includes(encodeURIComponent(pending.id)));
    assert.ok(Date.parse(r.json.expires_at) > Date.now());
    assert.equal((await grantsOf(p)).length, before, 'a pending request is not a grant');

    // 2. approve with the subject token
    const a = await approve(p, pending.id);
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.status, 'approved');
    assert.equal(a.json.grant_request_id, pending.id);
    assert.equal(typeof a.json.grant_id, 'string');
    const back = new URL(a.json.redirect_to);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('grant_request_id'), pending.id);
    assert.equal(back.searchParams.get('decision'), 'approve');

    // 3. exchange
    const t = await exchange(p, pending);
    assert.equal(t.status, 200, t.text);
    assert.equal(t.headers.get('cache-control'), 'no-store');
    assert.match(t.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(t.json.token_type, 'Bearer');
    assert.ok(Number.isInteger(t.json.expires_in) && t.json.expires_in > 0, String(t.json.expires_in));
    assert.equal(t.json.grant_id, a.json.grant_id);
    assert.equal(typeof t.json.access_token, 'string');
    assert.equal(typeof t.json.refresh_token, 'string');
    assertNoInternalId(t);
    assert.equal(await statusOf(p, t.json.grant_id), 'active');

    // 4. read with the access token
    const read = await readEffective(p, t.json.access_token);
    assert.equal(read.status, 200, read.text);
    assert.ok(read.json.claims.length > 0);
    assertNoInternalId(read);

    // 5. refresh: both tokens rotate
    const f = await refresh(p, t.json.refresh_token);
    assert.equal(f.status, 200, f.text);
    assert.equal(f.headers.get('cache-control'), 'no-store');
    assert.equal(f.json.token_type, 'Bearer');
    assert.ok(Number.isInteger(f.json.expires_in) && f.json.expires_in > 0);
    assert.equal(f.json.grant_id, t.json.grant_id);
    assert.equal(typeof f.json.refresh_token, 'string');
    assert.notEqual(f.json.refresh_token, t.json.refresh_token);
    assert.notEqual(f.json.access_token, t.json.access_token);

    // 6. the new access token reads
    const again = await readEffective(p, f.json.access_token);
    assert.equal(again.status, 200, again.text);
    assert.equal((await grantsOf(p)).length, before + 1, 'exactly one grant came of it');
  });

  it('revoke (subject token): the access token fails on its very next request', async () => {
    const g = await granted(p);
    assert.equal((await readEffective(p, g.access)).status, 200);
    const r = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: g.grantId },
    });
    assert.equal(r.status, 200, r.text);
    assertInvalidTokenChallenge(await readEffective(p, g.access), 'grant_revoked');
    assertInvalidTokenChallenge(
      await api(p.url, '/v1/profile/summary', { token: g.access }),
      'grant_revoked',
    );
    assert.equal(await statusOf(p, g.grantId), 'revoked');
  });

  it('a token minted with the provider key for another resource (audience) is 401', async () => {
    const g = await granted(p);
    const key = await loadSigningKey(p.store);
    const base = p.deps.provider.baseUrl;
    const foreign = new TokenService(key, { issuer: base });
    const t = await foreign.mint(
      { kind: 'grant', grantId: g.grantId, clientId: 'fragrance-demo' },
      600,
      new Date(),
      'https://other-resource.example',
    );
    assertInvalidTokenChallenge(await readEffective(p, t), 'invalid_token');
    // control: the same grant, key and issuer with this provider's audience reads
    const right = new TokenService(key, { issuer: base });
    const ok = await right.mint(
      { kind: 'grant', grantId: g.grantId, clientId: 'fragrance-demo' },
      600,
      new Date(),
      base,
    );
    assert.equal((await readEffective(p, ok)).status, 200);
  });

  it('single_use: the exchange gives no refresh token', async () => {
    const g = await granted(p, { access_mode: 'single_use' });
    assert.equal(g.response.json.token_type, 'Bearer');
    assert.equal(g.refresh, undefined, `a single-use grant got a refresh token: ${g.response.text}`);
    assert.ok(!('refresh_token' in g.response.json));
    assert.equal((await readEffective(p, g.access)).status, 200);
  });
});
