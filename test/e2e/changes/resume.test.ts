import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChangeEvent } from '../../../src/model/change-event.ts';
import { createSubject } from '../../../src/operations/accounts.ts';
import type { Caller } from '../../../src/operations/caller.ts';
import { followChanges } from '../../../src/operations/changes.ts';
import { ChangeFeedOverflow, type ChangeSubscription } from '../../../src/store/change-feed.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { propose, proposed, WRITE_GRANT } from '../writeback/helpers.ts';

// Following changes through the operation surfaces will use (operations/changes.ts
// followChanges): a subject follows their own events, a grantee only its grant's, and either
// resumes from the last seq it saw after a disconnect, getting every later event exactly once.

describe('following change events', () => {
  let p: TestProvider;
  const subject: Caller = { kind: 'subject', subjectId: '' };
  before(async () => {
    p = await startTestProvider();
    Object.assign(subject, { subjectId: p.subjectId });
  });
  after(() => p.close());

  function follow(caller: Caller, fromSeq?: number, buffer?: number): ChangeSubscription {
    const r = followChanges(p.deps, caller, fromSeq, buffer !== undefined ? { buffer } : {});
    assert.ok(r.ok, JSON.stringify(r));
    return r.value;
  }

  async function take(s: ChangeSubscription, n: number): Promise<ChangeEvent[]> {
    const it = s[Symbol.asyncIterator]();
    const out: ChangeEvent[] = [];
    while (out.length < n) {
      const next = await it.next();
      assert.equal(next.done, false);
      out.push(next.value);
    }
    return out;
  }

  /** One claims_written by the subject. */
  async function write(value: number) {
    const r = await propose(p, p.subjectToken, [proposed('core', 'risk_tolerance', value)]);
    assert.equal(r.status, 200, r.text);
  }

  it('resuming from the last seq seen gets every later event once, then goes on live', async () => {
    const live = follow(subject);
    for (const v of [0.1, 0.2, 0.3]) await write(v);
    const seen = await take(live, 2);
    live.close();
    await write(0.4);
    await write(0.5);
    const resumed = follow(subject, seen[1]!.seq);
    const rest = await take(resumed, 3);
    await write(0.6);
    const [next] = await take(resumed, 1);
    resumed.close();
    const all = [...seen, ...rest, next!].map((e) => e.seq);
    assert.equal(new Set(all).size, 6, 'none twice');
    assert.deepEqual(
      all,
      [...all].sort((a, b) => a - b),
      'in order',
    );
    const outbox = await p.store.listChanges({ after: seen[0]!.seq - 1, subjectId: p.subjectId, limit: 100 });
    assert.deepEqual(
      outbox.map((e) => e.seq),
      all,
      'no gap: exactly the outbox',
    );
  });

  it("a subject follows only their own subject's events", async () => {
    const live = follow(subject);
    const other = await createSubject(p.deps, { username: 'someone-else', password: 'another-password' });
    assert.ok(other.ok);
    await write(0.7);
    const [first] = await take(live, 1);
    assert.equal(first?.kind, 'claims_written', "another subject's profile_created is not delivered");
    assert.equal(first?.subject_id, p.subjectId);
    live.close();
  });

  it('a grantee follows only the events of its grant and its proposals, shown as it may see them', async () => {
    const own = await p.grant({ ...WRITE_GRANT });
    const other = await p.grant();
    const caller: Caller = { kind: 'grant', clientId: own.grant.grantee_id, grant: own.grant };
    const events = follow(caller);
    // Not its grant's: another grant revoked, a namespace outside the grant, the sensitive keys.
    await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: other.grant.grant_id },
    });
    const travel = await propose(p, p.subjectToken, [proposed('travel', 'pace_preference', 0.2)]);
    assert.equal(travel.status, 200, travel.text);
    await api(p.url, '/v1/profile/sensitive-keys', { token: p.subjectToken, body: { sensitive_keys: [] } });
    // Nor a change to claims in a namespace it covers: the same event would come for a claim
    // hidden from the grant (another key, another domain) as for one it sees.
    const frag = await propose(p, p.subjectToken, [proposed('fragrance', 'freshness_preference', 0.2)]);
    assert.equal(frag.status, 200, frag.text);
    // Its own: its proposal, its revocation.
    const queued = await propose(p, own.token, [proposed('core', 'risk_tolerance', 0.9)]);
    assert.equal(queued.status, 202, queued.text);
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: own.grant.grant_id } });
    const [created, revoked] = await take(events, 2);
    events.close();
    const pairwise = p.deps.pairwise.subject(p.subjectId, own.grant.grantee_id);
    for (const e of [created!, revoked!]) {
      assert.equal(e.subject_id, pairwise, 'the pairwise subject id, never the internal one');
      assert.deepEqual(e.grants, [own.grant.grant_id], 'only its own grant');
      assert.equal(e.ids.claim_ids, undefined, 'no claim ids');
    }
    assert.equal(created!.kind, 'proposal_created');
    assert.deepEqual(created!.ids.proposal_ids, [queued.json.proposals[0].proposal_id]);
    assert.equal(revoked!.kind, 'grant_revoked');
    assert.deepEqual(revoked!.ids, { grant_ids: [own.grant.grant_id] });
    // The outbox row itself still names the subject and claims: the narrowing is the view's.
    const row = (await p.store.listChanges({ after: created!.seq - 1, limit: 1 }))[0];
    assert.equal(row?.subject_id, p.subjectId);
    assert.ok(row?.ids.claim_ids?.length);
    // The fragrance write was committed between the two, and named the grant as one that might
    // see it: the grantee was not told.
    const between = await p.store.listChanges({ after: created!.seq - 2, limit: 1 });
    assert.equal(between[0]?.kind, 'claims_written');
    assert.ok(between[0]?.grants.includes(own.grant.grant_id));
  });

  it('a follower that does not read overflows; following again from the seq it carries misses nothing', async () => {
    const stalled = follow(subject, undefined, 3);
    const start = await p.store.latestChangeSeq();
    for (let i = 0; i < 10; i++) await write(i / 10);
    const it = stalled[Symbol.asyncIterator]();
    await assert.rejects(it.next(), (e: unknown) => e instanceof ChangeFeedOverflow && e.lastSeq === start);
    const again = follow(subject, start);
    const got = await take(again, 10);
    again.close();
    assert.deepEqual(
      got.map((e) => e.kind),
      Array(10).fill('claims_written'),
    );
  });

  it('a seq to resume from must be a non-negative integer', () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      const r = followChanges(p.deps, subject, bad);
      assert.equal(r.ok ? 'ok' : r.error.code, 'invalid_request');
    }
  });
});
