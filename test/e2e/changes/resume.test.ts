import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChangeEvent } from '../../../src/model/change-event.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import type { Caller } from '../../../src/operations/callers/caller.ts';
import { followChanges } from '../../../src/operations/changes.ts';
import { ChangeFeedOverflow, type ChangeSubscription } from '../../../src/store/change-feed.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { propose, proposed, WRITE_GRANT } from '../../support/writeback.ts';

// Following changes through the operation surfaces will use (operations/changes.ts
// followChanges): a subject follows their own events (a grantee may not follow any), and resumes
// from the last seq it saw after a disconnect, getting every later event exactly once.

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

  it('a grantee may not follow changes at all: access_denied, whatever it asks', async () => {
    const own = await p.grant({ ...WRITE_GRANT });
    const caller: Caller = { kind: 'grant', clientId: own.grant.grantee_id, grant: own.grant };
    for (const fromSeq of [undefined, 0, -1]) {
      const r = followChanges(p.deps, caller, fromSeq);
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.code, 'access_denied');
    }
    // Why: a write it may not see still names its grant among those that might (a claim of a
    // namespace it covers), and the seqs count every write of the provider.
    const frag = await propose(p, p.subjectToken, [proposed('fragrance', 'freshness_preference', 0.2)]);
    assert.equal(frag.status, 200, frag.text);
    const [row] = await p.store.listChanges({ after: (await p.store.latestChangeSeq()) - 1, limit: 1 });
    assert.equal(row?.kind, 'claims_written');
    assert.ok(row?.grants.includes(own.grant.grant_id));
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
