import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { childId } from '../../../../src/operations/child-ids.ts';
import { mintPackage } from '../../../../src/operations/consent/package-tokens.ts';
import { CHILD_ID } from '../../../support/grant-packages.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// Package tokens minted by the operator (`ppx mint package`), checked over real HTTP:
// introspection, refresh with one child withdrawn, the disconnect endpoint.

function form(params: Record<string, string>) {
  return {
    body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

describe('grant packages from the operator', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  async function twoChildren(singleUse = false) {
    const a = await p.grant();
    const b = await p.grant({
      allowed_namespaces: ['core'],
      ...(singleUse ? { access_mode: 'single_use' as const } : {}),
    });
    const pkg = await mintPackage(p.deps, [a.grant.grant_id, b.grant.grant_id]);
    assert.ok(pkg.ok);
    return { a: a.grant.grant_id, b: b.grant.grant_id, pkg: pkg.value };
  }

  const introspect = (token: string) =>
    api(p.url, '/oauth/introspect', { method: 'POST', token: p.subjectToken, ...form({ token }) });
  const refresh = (token: string) =>
    api(p.url, '/oauth/token', {
      method: 'POST',
      ...form({ grant_type: 'refresh_token', refresh_token: token, client_id: 'fragrance-demo' }),
    });

  it('a package token names every child and is refused on the PPX endpoints', async () => {
    const { a, b, pkg } = await twoChildren();
    const claims = decodeJwt(pkg.access_token);
    assert.equal(claims['ppx_kind'], 'package');
    assert.deepEqual(claims['grant_ids'], [a, b]);
    const r = await api(p.url, '/v1/profile/summary', { token: pkg.access_token });
    assert.equal(r.status, 401);
    assert.equal(r.json.error, 'invalid_token');
  });

  it('introspection reports the package kind and each child status', async () => {
    const { a, b, pkg } = await twoChildren();
    const r = await introspect(pkg.access_token);
    assert.equal(r.status, 200);
    assert.equal(r.json.active, true);
    assert.equal(r.json.pdpp_token_kind, 'grant_package');
    // Introspection names the children by child id; the token's claims keep the PPX grant ids.
    assert.deepEqual(r.json.pdpp_grant_status, { [childId(a)]: 'active', [childId(b)]: 'active' });
    assert.deepEqual(r.json.grant_ids, [childId(a), childId(b)]);
    for (const id of [...Object.keys(r.json.pdpp_grant_status), ...r.json.grant_ids]) {
      assert.match(id, CHILD_ID);
    }

    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: a } });
    const after = await introspect(pkg.access_token);
    assert.equal(after.json.active, true, 'one active child keeps the package token active');
    assert.deepEqual(after.json.pdpp_grant_status, { [childId(a)]: 'revoked', [childId(b)]: 'active' });
  });

  it('withdrawing one child leaves the others: refresh still works; withdrawing all ends it', async () => {
    const { a, b, pkg } = await twoChildren();
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: a } });
    const next = await refresh(pkg.refresh_token!);
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(decodeJwt(next.json.access_token)['grant_ids'], [a, b]);
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: b } });
    const ended = await refresh(next.json.refresh_token);
    assert.equal(ended.status, 400);
    assert.equal(ended.json.error, 'invalid_grant');
  });

  it('a single-use child is consumed by the first token: readable only until that token expires', async () => {
    const { b, pkg } = await twoChildren(true);
    const grants = await api(p.url, '/v1/consent/grants', { token: p.subjectToken });
    const child = grants.json.grants.find((g: { grant_id: string }) => g.grant_id === b);
    const exp = Number(decodeJwt(pkg.access_token).exp) * 1000;
    assert.ok(
      Math.abs(Date.parse(child.expires_at) - exp) <= 1000,
      `${child.expires_at} vs ${new Date(exp).toISOString()}`,
    );
    assert.ok(pkg.refresh_token, 'a package with a continuous child keeps a refresh token');
  });

  it('an all-single-use package gets no refresh token', async () => {
    const a = await p.grant({ access_mode: 'single_use' });
    const pkg = await mintPackage(p.deps, [a.grant.grant_id]);
    assert.ok(pkg.ok);
    assert.equal(pkg.value.refresh_token, undefined);
  });

  it('the disconnect endpoint ends every child; other tokens are refused there', async () => {
    const { a, b, pkg } = await twoChildren();
    const grantToken = (await p.grant()).token;
    const refused = await api(p.url, '/oauth/package/disconnect', {
      method: 'POST',
      ...form({ token: grantToken, client_id: 'fragrance-demo' }),
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'unsupported_token_type');

    const r = await api(p.url, '/oauth/package/disconnect', {
      method: 'POST',
      ...form({ token: pkg.access_token, client_id: 'fragrance-demo' }),
    });
    assert.equal(r.status, 200);
    const after = await introspect(pkg.access_token);
    assert.equal(after.json.active, false);
    assert.deepEqual(after.json.pdpp_grant_status, { [childId(a)]: 'revoked', [childId(b)]: 'revoked' });
    assert.equal((await refresh(pkg.refresh_token!)).status, 400);
  });

  it('mintPackage refuses grants of different grantees, missing or inactive grants', async () => {
    const a = await p.grant();
    const other = await p.grant({
      client_id: 'travel-demo',
      allowed_domains: ['travel'],
      allowed_namespaces: ['core'],
    });
    const mixed = await mintPackage(p.deps, [a.grant.grant_id, other.grant.grant_id]);
    assert.equal(mixed.ok, false);
    assert.equal((await mintPackage(p.deps, ['ppx:grant:nope'])).ok, false);
    assert.equal((await mintPackage(p.deps, [])).ok, false);
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: a.grant.grant_id } });
    assert.equal((await mintPackage(p.deps, [a.grant.grant_id])).ok, false);
  });
});
