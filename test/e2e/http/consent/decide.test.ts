import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubject } from '../../../../src/operations/accounts/subjects-and-sessions.ts';
import { issueSubjectToken } from '../../../../src/operations/tokens/issue-tokens.ts';
import {
  approve,
  ask,
  assertInvalidGrant,
  exchange,
  granted,
  grantsOf,
  REDIRECT,
  readEffective,
  reject,
} from '../../../support/consent-flow.ts';
import { assertError, keysOf } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// Deciding on a request (WIRE-NOTES §2.2): only the subject it names, with a subject token; once;
// narrowing only ever shrinks the request and is enforced on every read.

describe('consent decisions over HTTP', () => {
  let p: TestProvider;
  let grantToken: string;
  let otherSubjectToken: string;

  before(async () => {
    p = await startTestProvider();
    grantToken = (await p.grant()).token;
    const s2 = await createSubject(p.deps, {
      username: 'second-subject',
      password: 'a long enough password',
      subject_id: 'did:example:user-second-0002',
    });
    assert.ok(s2.ok, JSON.stringify(s2));
    otherSubjectToken = (await issueSubjectToken(p.deps, s2.value.subject_id)).access_token;
  });
  after(() => p.close());

  const grantCount = async () => (await grantsOf(p)).length;

  /** The request is still pending: nothing exchanges, and the subject can still approve it. */
  async function assertStillPending(pending: Awaited<ReturnType<typeof ask>>) {
    assertInvalidGrant(await exchange(p, pending));
    const a = await approve(p, pending.id);
    assert.equal(a.status, 200, `the request was not pending any more: ${a.text}`);
    assert.equal((await exchange(p, pending)).status, 200);
  }

  it('a grant token presented to approve is 403 access_denied; the request stays pending', async () => {
    const pending = await ask(p);
    const before = await grantCount();
    assertError(await approve(p, pending.id, { token: grantToken }), 403, 'access_denied');
    assertError(await reject(p, pending.id, grantToken), 403, 'access_denied');
    assert.equal(await grantCount(), before);
    await assertStillPending(pending);
  });

  it("another subject's token is 404 not_found; the request stays pending", async () => {
    const pending = await ask(p);
    const before = await grantCount();
    assertError(await approve(p, pending.id, { token: otherSubjectToken }), 404, 'not_found');
    assertError(await reject(p, pending.id, otherSubjectToken), 404, 'not_found');
    assert.equal(await grantCount(), before);
    assert.equal((await grantsOf(p, otherSubjectToken)).length, 0, 'the other subject got a grant');
    await assertStillPending(pending);
  });

  it('an unknown request id is 404 not_found', async () => {
    assertError(await approve(p, 'gr_does-not-exist'), 404, 'not_found');
  });

  it('no token at all is 401', async () => {
    const pending = await ask(p);
    const r = await api(p.url, '/v1/consent/approve', { body: { grant_request_id: pending.id } });
    assertError(r, 401, 'invalid_token');
    await assertStillPending(pending);
  });

  it('approving twice is 409 conflict, and only one grant exists', async () => {
    const pending = await ask(p);
    const before = await grantCount();
    const first = await approve(p, pending.id);
    assert.equal(first.status, 200, first.text);
    assertError(await approve(p, pending.id), 409, 'conflict');
    assertError(await reject(p, pending.id), 409, 'conflict');
    assert.equal(await grantCount(), before + 1);
  });

  it('concurrent approvals: exactly one succeeds, one grant', async () => {
    const pending = await ask(p);
    const before = await grantCount();
    const results = await Promise.all(Array.from({ length: 5 }, () => approve(p, pending.id)));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409, 409]);
    assert.equal(await grantCount(), before + 1);
  });

  it('reject: 200 with a redirect back to the client saying reject', async () => {
    const pending = await ask(p);
    const r = await reject(p, pending.id);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 'rejected');
    assert.equal(r.json.grant_id, undefined);
    const back = new URL(r.json.redirect_to);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('decision'), 'reject');
  });

  it('reject then approve is 409, and nothing is granted', async () => {
    const pending = await ask(p);
    const before = await grantCount();
    assert.equal((await reject(p, pending.id)).status, 200);
    assertError(await approve(p, pending.id), 409, 'conflict');
    assertError(await reject(p, pending.id), 409, 'conflict');
    assert.equal(await grantCount(), before);
  });

  it('after a reject the exchange is invalid_grant, and keeps failing', async () => {
    const pending = await ask(p);
    assert.equal((await reject(p, pending.id)).status, 200);
    assertInvalidGrant(await exchange(p, pending));
    assertInvalidGrant(await exchange(p, pending));
  });

  it('a reject body with an extra field (narrow) is 400 and decides nothing', async () => {
    const pending = await ask(p);
    const r = await api(p.url, '/v1/consent/reject', {
      token: p.subjectToken,
      body: { grant_request_id: pending.id, narrow: {} },
    });
    assertError(r, 400, 'invalid_request');
    await assertStillPending(pending);
  });

  describe('narrowing', () => {
    it('narrowed to one core key: every read returns only that key', async () => {
      const g = await granted(
        p,
        {},
        { allowed_namespaces: ['core'], allowed_claim_keys: ['novelty_tolerance'] },
      );
      const listed = (await grantsOf(p)).find((x) => x.grant_id === g.grantId) as unknown as {
        allowed_namespaces: string[];
        allowed_claim_keys: string[];
      };
      assert.deepEqual(listed.allowed_namespaces, ['core']);
      assert.deepEqual(listed.allowed_claim_keys, ['novelty_tolerance']);

      const reads = [
        await readEffective(p, g.access),
        await api(p.url, '/v1/profile/query', { token: g.access, body: {} }),
        await api(p.url, '/v1/profile/summary', { token: g.access }),
      ];
      for (const r of reads) {
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(keysOf(r.json), ['novelty_tolerance']);
        assert.ok(!r.text.includes('fragrance.'), 'a narrowed-away namespace leaked');
      }
      // asking for what was narrowed away is refused, not quietly answered
      for (const body of [{ requested_namespaces: ['fragrance'] }, { requested_keys: ['risk_tolerance'] }]) {
        const asked = await api(p.url, '/v1/profile/query', { token: g.access, body });
        assertError(asked, 403, 'insufficient_scope');
      }
    });

    it('the narrowing survives a refresh', async () => {
      const g = await granted(
        p,
        {},
        { allowed_namespaces: ['core'], allowed_claim_keys: ['novelty_tolerance'] },
      );
      const f = await api(p.url, '/v1/consent/refresh', {
        body: { client_id: 'fragrance-demo', refresh_token: g.refresh },
      });
      assert.equal(f.status, 200, f.text);
      const r = await readEffective(p, f.json.access_token);
      assert.deepEqual(keysOf(r.json), ['novelty_tolerance']);
    });

    const farFuture = () => new Date(Date.now() + 60 * 86_400_000).toISOString();
    const widenings: [string, () => Record<string, unknown>][] = [
      ['a namespace not requested', () => ({ allowed_namespaces: ['core', 'travel'] })],
      ['a key of a namespace not requested', () => ({ allowed_claim_keys: ['travel.pace_preference'] })],
      [
        'a key outside the kept namespaces',
        () => ({ allowed_namespaces: ['core'], allowed_claim_keys: ['fragrance.family_preference'] }),
      ],
      ['a domain not requested', () => ({ allowed_domains: ['fragrance', 'travel'] })],
      ['a purpose not requested', () => ({ purposes: ['recommendation', 'matching'] })],
      ['an operation not requested', () => ({ allowed_operations: ['read', 'export'] })],
      ['a looser writeback policy', () => ({ writeback_policy: 'allow' })],
      ['a looser cross-domain transfer', () => ({ cross_domain_transfer: 'allow' })],
      ['a later expires_at', () => ({ expires_at: farFuture() })],
      ['an expiry in the past', () => ({ expires_at: new Date(Date.now() - 60_000).toISOString() })],
      ['an empty namespace list', () => ({ allowed_namespaces: [] })],
      ['an unknown narrowing field', () => ({ scope: 'all' })],
    ];
    for (const [name, narrow] of widenings) {
      it(`${name} is 400 and the request stays pending`, async () => {
        const pending = await ask(p);
        const before = await grantCount();
        assertError(await approve(p, pending.id, { narrow: narrow() }), 400, 'invalid_request');
        assert.equal(await grantCount(), before, 'a refused narrowing created a grant');
        await assertStillPending(pending);
      });
    }
  });
});
