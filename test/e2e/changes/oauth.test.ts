import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  decidePackage,
  exchangeCode,
  FRAGRANCE,
  memberIds,
  packageRequest,
  packageTokens,
  TRAVEL,
} from '../../support/grant-packages.ts';
import {
  authorizeCode,
  get,
  pkce,
  postForm,
  publicClient,
  REDIRECT,
  signedInCookie,
} from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { type Watch, watch } from './helpers.ts';

// OAuth 2.1 (authorize, the consent page, token, revocation) and grant packages: each write
// announces its change by the time its response arrives. Client registration and token issuance
// are not changes to anyone's data: they announce nothing.

describe('change events of OAuth authorization, token and revocation', () => {
  let p: TestProvider;
  let w: Watch;
  let cookie: string;
  let client: string;
  before(async () => {
    p = await startTestProvider();
    cookie = await signedInCookie(p);
    w = await watch(p);
  });
  after(async () => {
    w.close();
    await p.close();
  });

  const token = (params: Record<string, string>) => postForm(`${p.url}/oauth/token`, params);

  it('dynamic client registration announces nothing', async () => {
    client = await publicClient(p);
    await w.quiet();
  });

  it('authorize and consent: consent_requested, then grant_created and consent_decided; the token nothing', async () => {
    const { code, verifier } = await authorizeCode(p, cookie, client);
    const [requested, created, decided] = await w.expect(
      { kind: 'consent_requested', grants: [] },
      { kind: 'grant_created' },
      { kind: 'consent_decided' },
    );
    const grantId = created!.ids.grant_ids![0]!;
    assert.deepEqual(decided!.ids, {
      grant_request_ids: requested!.ids.grant_request_ids,
      grant_ids: [grantId],
    });
    assert.deepEqual(decided!.grants, [grantId]);
    const t = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client,
    });
    assert.equal(t.status, 200, t.text);
    await w.quiet();

    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: t.json.refresh_token,
      client_id: client,
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    await w.quiet();

    // RFC 6749 §4.1.2: a code used twice is stolen; the grant and its family end.
    const replay = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client,
    });
    assert.equal(replay.status, 400);
    await w.expect(
      { kind: 'grant_revoked', ids: { grant_ids: [grantId] }, grants: [grantId] },
      { kind: 'refresh_family_ended', ids: { grant_ids: [grantId] }, grants: [grantId] },
    );
  });

  it('a package whose second element cannot be granted leaves no request behind and announces nothing', async () => {
    const before = await p.store.latestChangeSeq();
    const unknown = { ...TRAVEL, detail_id: 'unknown-area', allowed_namespaces: ['nope'] };
    const r = await get(packageRequest(p, client, pkce().challenge, [FRAGRANCE, unknown]), cookie);
    assert.equal(r.status, 302);
    const back = new URL(r.headers.get('location')!);
    assert.equal(back.searchParams.get('error'), 'invalid_authorization_details');
    // The first element's request was rolled back with the second's refusal: nothing committed.
    assert.deepEqual(await p.store.listChanges({ after: before, limit: 10 }), []);
    await w.quiet();
  });

  it('a wrong verifier fails the exchange and announces nothing', async () => {
    const { code } = await authorizeCode(p, cookie, client);
    await w.expect({ kind: 'consent_requested' }, { kind: 'grant_created' }, { kind: 'consent_decided' });
    const t = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: 'x'.repeat(43),
      client_id: client,
    });
    assert.equal(t.status, 400);
    await w.quiet();
  });

  it('RFC 7009 revocation ends the grant and its family; revoking again nothing', async () => {
    const { code, verifier } = await authorizeCode(p, cookie, client);
    const [, created] = await w.expect(
      { kind: 'consent_requested' },
      { kind: 'grant_created' },
      { kind: 'consent_decided' },
    );
    const grantId = created!.ids.grant_ids![0]!;
    const t = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client,
    });
    const revoke = () =>
      postForm(`${p.url}/oauth/revoke`, { token: t.json.refresh_token, client_id: client });
    assert.equal((await revoke()).status, 200);
    await w.expect(
      { kind: 'grant_revoked', grants: [grantId] },
      { kind: 'refresh_family_ended', grants: [grantId] },
    );
    assert.equal((await revoke()).status, 200);
    await w.quiet();
  });

  it('a grant package: one request per element, one decision; a replayed code revokes every child and ends the family', async () => {
    const pkg = await packageTokens(p, cookie, client, [FRAGRANCE, TRAVEL]);
    const members = memberIds(pkg.fields);
    assert.equal(members.length, 2);
    const events = await w.expect(
      { kind: 'consent_requested', ids: { grant_request_ids: [members[0]!] } },
      { kind: 'consent_requested', ids: { grant_request_ids: [members[1]!] } },
      { kind: 'grant_created' },
      { kind: 'grant_created' },
      { kind: 'consent_decided', ids: { grant_request_ids: members } },
    );
    const children = events.slice(2, 4).map((e) => e.ids.grant_ids![0]!);
    assert.deepEqual(events[4]!.grants, [...children].sort());
    // The exchange was the token: nothing beyond the decision.
    await w.quiet();
    const replayed = await exchangeCode(p, client, pkg.code, pkg.verifier);
    assert.equal(replayed.status, 400);
    await w.expect(
      { kind: 'grant_revoked', grants: [children[0]!] },
      { kind: 'grant_revoked', grants: [children[1]!] },
      { kind: 'refresh_family_ended', grants: [...children].sort() },
    );
  });

  it('a package declined as a whole: one consent_decided naming every element, and no grant', async () => {
    const { back, fields } = await decidePackage(p, cookie, client, [FRAGRANCE, TRAVEL], (f) => {
      f.set('e0.choice', 'reject');
      f.set('e1.choice', 'reject');
    });
    assert.equal(back.searchParams.get('error'), 'access_denied');
    const members = memberIds(fields);
    await w.expect(
      { kind: 'consent_requested', ids: { grant_request_ids: [members[0]!] } },
      { kind: 'consent_requested', ids: { grant_request_ids: [members[1]!] } },
      { kind: 'consent_decided', ids: { grant_request_ids: members }, grants: [] },
    );
    await w.quiet();
  });

  it('the package disconnect endpoint: every child revoked, the family ended', async () => {
    const pkg = await packageTokens(p, cookie, client, [FRAGRANCE, TRAVEL]);
    const events = await w.expect(
      { kind: 'consent_requested' },
      { kind: 'consent_requested' },
      { kind: 'grant_created' },
      { kind: 'grant_created' },
      { kind: 'consent_decided' },
    );
    const children = events.slice(2, 4).map((e) => e.ids.grant_ids![0]!);
    const r = await postForm(`${p.url}/oauth/package/disconnect`, {
      token: pkg.tokens.access_token,
      client_id: client,
    });
    assert.equal(r.status, 200, r.text);
    await w.expect(
      { kind: 'grant_revoked', grants: [children[0]!] },
      { kind: 'grant_revoked', grants: [children[1]!] },
      { kind: 'refresh_family_ended', ids: { grant_ids: children }, grants: [...children].sort() },
    );
    const again = await postForm(`${p.url}/oauth/package/disconnect`, {
      token: pkg.tokens.access_token,
      client_id: client,
    });
    assert.equal(again.status, 200);
    await w.quiet();
  });
});
