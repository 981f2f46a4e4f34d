import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import {
  REFUSED_CALL_SPAN_MS,
  refusedCallDetail,
} from '../../../src/operations/callers/refused-call-audit.ts';
import { createGrant } from '../../../src/operations/grants/consent-grants.ts';
import { issueGrantToken, issueSubjectToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { testClock } from '../../support/clock.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// A call refused because its grant had ended is in its person's log (issue 26, item 3), never in
// another person's, and at most once per grant per minute however often the app calls.

interface Event {
  actor: { kind: string; id: string };
  grant_id?: string;
  action: string;
  outcome: string;
  detail?: string;
}

describe('a refused call after the grant ended', () => {
  const clock = testClock();
  let p: TestProvider;
  let otherToken: string;
  let otherSubject: string;

  before(async () => {
    p = await startTestProvider({ clock: clock.clock });
    const s2 = await createSubject(p.deps, {
      username: 'second-person',
      password: 'a long enough password',
      subject_id: 'did:example:user-second-0003',
    });
    assert.ok(s2.ok, JSON.stringify(s2));
    otherSubject = s2.value.subject_id;
    otherToken = (await issueSubjectToken(p.deps, otherSubject)).access_token;
  });
  after(() => p.close());

  const log = async (token: string, grantId: string): Promise<Event[]> => {
    const r = await api(p.url, `/v1/audit/events?grant_id=${encodeURIComponent(grantId)}&limit=500`, {
      token,
    });
    assert.equal(r.status, 200, r.text);
    return r.json.events;
  };
  const refusals = (events: Event[], code: 'grant_revoked' | 'grant_expired') =>
    events.filter((e) => e.action === 'denied' && e.detail === refusedCallDetail(code));
  const call = (token: string) => api(p.url, '/v1/profile/query', { token, body: {} });

  it('logs it for the grant’s person, once a minute however often the app calls', async () => {
    const { grant, token } = await p.grant();
    assert.equal((await call(token)).status, 200);
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(revoked.status, 200, revoked.text);
    for (let i = 0; i < 25; i++) {
      const r = await call(token);
      assert.equal(r.status, 401);
      assert.equal(r.json.error, 'grant_revoked');
    }
    let found = refusals(await log(p.subjectToken, grant.grant_id), 'grant_revoked');
    assert.equal(found.length, 1, 'one entry for 25 refused calls within a minute');
    assert.deepEqual(found[0]?.actor, { kind: 'grantee', id: grant.grantee_id });
    assert.equal(found[0]?.grant_id, grant.grant_id);
    assert.equal(found[0]?.outcome, 'denied');
    // Nothing of it in another person's log.
    assert.equal((await log(otherToken, grant.grant_id)).length, 0);

    clock.advance(REFUSED_CALL_SPAN_MS + 1000);
    assert.equal((await call(token)).status, 401);
    assert.equal((await call(token)).status, 401);
    found = refusals(await log(p.subjectToken, grant.grant_id), 'grant_revoked');
    assert.equal(found.length, 2, 'one more in the next minute');
  });

  it('logs a call under an expired grant as such', async () => {
    const { grant, token } = await p.grant({ expires_at: new Date(clock.now() + 60_000).toISOString() });
    assert.equal((await call(token)).status, 200);
    clock.advance(120_000);
    const r = await call(token);
    assert.equal(r.status, 401);
    assert.equal(r.json.error, 'grant_expired');
    assert.equal(refusals(await log(p.subjectToken, grant.grant_id), 'grant_expired').length, 1);
  });

  it('logs another person’s refused call in their log only', async () => {
    const made = await createGrant(
      p.deps,
      {
        subject_id: otherSubject,
        client_id: 'fragrance-demo',
        purposes: ['recommendation'],
        allowed_domains: ['fragrance'],
        allowed_namespaces: ['core', 'fragrance'],
        allowed_operations: ['read', 'query'],
        expires_at: new Date(clock.now() + 30 * 86_400_000).toISOString(),
      },
      'operator',
    );
    assert.ok(made.ok, JSON.stringify(made));
    const token = (await issueGrantToken(p.deps, made.value)).access_token;
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: otherToken,
      body: { grant_id: made.value.grant_id },
    });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await call(token)).status, 401);
    assert.equal(refusals(await log(otherToken, made.value.grant_id), 'grant_revoked').length, 1);
    assert.equal((await log(p.subjectToken, made.value.grant_id)).length, 0, 'not in the first person’s log');
    const mine = await api(p.url, '/v1/audit/events?action=denied&limit=500', { token: p.subjectToken });
    assert.ok(!mine.json.events.some((e: Event) => e.grant_id === made.value.grant_id));
  });

  it('does not log a token naming a grant it does not hold', async () => {
    const { grant } = await p.grant();
    const before = (await log(p.subjectToken, grant.grant_id)).length;
    // Another client's token for this grant id is simply invalid: nothing is said about the grant.
    const forged = await issueGrantToken(p.deps, { ...grant, grantee_id: 'someone-else' });
    const r = await call(forged.access_token);
    assert.equal(r.status, 401);
    assert.equal(r.json.error, 'invalid_token');
    assert.equal((await log(p.subjectToken, grant.grant_id)).length, before);
  });
});
