import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { ConsentReceiptClaims, RECEIPT_TYP } from '../../../../src/model/consent-receipt.ts';
import { createSubject } from '../../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../../src/operations/seed/demo-profile.ts';
import { approve, ask, exchange, granted, reject } from '../../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { signInOverHttp } from '../../../support/web-session.ts';

// Signed consent receipts (docs/receipts.md) against a started provider: the token response of a
// grant's first exchange carries the approval's receipt, verifiable with the published JWKS; each
// decision leaves one in the person's list; nobody else can list or download them.

const PERSON = { username: 'receipt-person', password: 'receipt-person-password-1' };
const OTHER = { username: 'receipt-other', password: 'receipt-other-password-1' };

describe('signed consent receipts', () => {
  let p: TestProvider;
  let jwks: JSONWebKeySet;
  let mine: string;
  let theirs: string;
  before(async () => {
    p = await startTestProvider();
    const made = await createSubject(p.deps, { ...PERSON, subject_id: DEMO_SUBJECT });
    assert.ok(made.ok);
    assert.ok((await createSubject(p.deps, OTHER)).ok);
    jwks = (await (await fetch(`${p.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    mine = (await signInOverHttp(p.url, PERSON.username, PERSON.password)).session;
    theirs = (await signInOverHttp(p.url, OTHER.username, OTHER.password)).session;
  });
  after(() => p.close());

  const get = (path: string, session: string) =>
    fetch(p.url + path, { headers: { cookie: `ppx_session=${session}` }, redirect: 'manual' });
  const listOf = async (session: string) => {
    const r = await get('/app/receipts.json', session);
    assert.equal(r.status, 200);
    return ((await r.json()) as { receipts: { receipt_id: string; claims: ConsentReceiptClaims }[] })
      .receipts;
  };
  async function verified(jws: string): Promise<ConsentReceiptClaims> {
    assert.equal(decodeProtectedHeader(jws).typ, RECEIPT_TYP);
    const { payload } = await compactVerify(jws, createLocalJWKSet(jwks));
    return ConsentReceiptClaims.parse(JSON.parse(new TextDecoder().decode(payload)));
  }

  it('gives the approval receipt with the first tokens, verifiable with the published JWKS, and none on refresh', async () => {
    const g = await granted(p);
    const jws = g.response.json.consent_receipt as string;
    assert.equal(typeof jws, 'string');
    const c = await verified(jws);
    assert.equal(c.decision, 'approved');
    assert.equal(c.grant_id, g.grantId);
    assert.equal(c.aud, 'fragrance-demo');
    assert.equal(c.app.client_id, 'fragrance-demo');
    assert.equal(c.iss, p.deps.provider.baseUrl);
    assert.deepEqual(c.data.namespaces, ['core', 'fragrance']);
    assert.deepEqual(c.purposes, ['recommendation']);
    assert.match(c.notice?.hash ?? '', /^[A-Za-z0-9_-]{43}$/);
    // The app knows the person only by its pairwise id: the internal subject id is not in it.
    assert.match(c.sub, /^ppx:subject:/);
    assert.ok(!jws.includes(p.subjectId) && !JSON.stringify(c).includes(p.subjectId));
    const r = await api(p.url, '/v1/consent/refresh', {
      body: { client_id: 'fragrance-demo', refresh_token: g.refresh },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.consent_receipt, undefined);
  });

  it('says narrowed when the person gave less, and rejected for a refusal (with no grant)', async () => {
    const pending = await ask(p);
    assert.equal(
      (await approve(p, pending.id, { narrow: { allowed_namespaces: ['fragrance'] } })).status,
      200,
    );
    const t = await exchange(p, pending);
    const c = await verified(t.json.consent_receipt);
    assert.equal(c.decision, 'narrowed');
    assert.deepEqual(c.data.namespaces, ['fragrance']);

    const refused = await ask(p);
    assert.equal((await reject(p, refused.id)).status, 200);
    const listed = (await listOf(mine)).find((r) => r.claims.grant_request_id === refused.id);
    assert.equal(listed?.claims.decision, 'rejected');
    assert.equal(listed?.claims.grant_id, undefined);
  });

  it('lists a revoked receipt after a revocation, newest first, and downloads it as a .jwt file', async () => {
    const g = await granted(p);
    const r = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: g.grantId },
    });
    assert.ok(r.status === 200, r.text);
    const list = await listOf(mine);
    const first = list[0];
    assert.equal(first?.claims.decision, 'revoked');
    assert.equal(first?.claims.revoked_by, 'person');
    assert.equal(first?.claims.grant_id, g.grantId);
    // The notice the grant was approved on stays with it.
    const approval = await verified(g.response.json.consent_receipt);
    assert.equal(first?.claims.notice?.hash, approval.notice?.hash);

    const d = await get(`/app/receipts/${first!.receipt_id}/download`, mine);
    assert.equal(d.status, 200);
    assert.equal(d.headers.get('content-type'), 'application/jwt');
    assert.match(
      d.headers.get('content-disposition') ?? '',
      /attachment; filename="consent-receipt-rcpt_[^"]+\.jwt"/,
    );
    assert.equal((await verified(await d.text())).jti, first!.receipt_id);
  });

  it("gives another person none of someone's receipts: the same 404 as a missing one", async () => {
    const someone = (await listOf(mine))[0]!.receipt_id;
    assert.deepEqual(await listOf(theirs), []);
    const other = await get(`/app/receipts/${someone}/download`, theirs);
    const missing = await get('/app/receipts/rcpt_nothing/download', theirs);
    assert.equal(other.status, 404);
    assert.equal(missing.status, 404);
    assert.equal(await other.text(), await missing.text());
    const signedOut = await fetch(`${p.url}/app/receipts/${someone}/download`);
    assert.equal(signedOut.status, 401);
  });

  it('issues an expired receipt once, when the expiry is first noticed', async () => {
    const { grant } = await p.grant();
    // Past its expiry: written straight to the store, as no operation backdates a grant.
    await p.store.shortenGrantExpiry(grant.grant_id, new Date(Date.now() - 1000).toISOString());
    const once = (await listOf(mine)).filter((r) => r.claims.grant_id === grant.grant_id);
    const twice = (await listOf(mine)).filter((r) => r.claims.grant_id === grant.grant_id);
    assert.deepEqual(
      once.map((r) => r.claims.decision),
      ['expired'],
    );
    assert.equal(twice.length, 1);
  });
});
