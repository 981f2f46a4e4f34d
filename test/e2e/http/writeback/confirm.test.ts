import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import {
  auditActions,
  confirm,
  proposalsOf,
  propose,
  proposed,
  readKey,
  storedClaims,
  WRITE_GRANT,
} from '../../../support/writeback.ts';

// confirm_updates (SPEC §9): confirm, edit, reject, at most once; history and diff (SPEC §11).

describe('confirm-updates', () => {
  let p: TestProvider;
  let writer: { token: string; grant: { grant_id: string } };
  let t0: string;
  before(async () => {
    p = await startTestProvider();
    writer = await p.grant({ ...WRITE_GRANT, writeback_policy: 'review_required' });
    t0 = new Date().toISOString();
  });
  after(() => p.close());

  const queue = async (claim: unknown): Promise<string> => {
    const r = await propose(p, writer.token, [claim]);
    assert.equal(r.status, 202, r.text);
    return r.json.proposals[0].proposal_id;
  };

  it('a confirmation changes what a later read returns, and sets last_confirmed_at', async () => {
    const id = await queue(proposed('fragrance', 'freshness_preference', 0.91));
    assert.equal((await readKey(p, writer.token, 'fragrance.freshness_preference'))?.value, 0.6);
    const before_ = Date.now();
    const r = await confirm(p, p.subjectToken, [{ proposal_id: id, action: 'confirm' }]);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.decisions, [
      { proposal_id: id, claim_id: 'ppx:claim:demo-frag-freshness', action: 'confirm', status: 'confirmed' },
    ]);
    const read = await readKey(p, writer.token, 'fragrance.freshness_preference');
    assert.equal(read?.value, 0.91);
    assert.equal(read?.claim_id, 'ppx:claim:demo-frag-freshness');
    assert.equal(read?.review?.review_status, 'confirmed');
    assert.ok(Date.parse(read?.lifecycle?.last_confirmed_at ?? '') >= before_ - 1000);
    const stored = (await proposalsOf(p)).find((x) => x.proposal_id === id);
    assert.equal(stored?.status, 'confirmed');
    assert.deepEqual(stored?.decided_by, { kind: 'subject', id: p.subjectId });
    const events = await auditActions(p, 'proposal_confirmed');
    assert.ok(events.some((e) => e.detail === id && e.claim_keys[0] === 'fragrance.freshness_preference'));
  });

  it('deciding twice is 409 conflict, and the first decision stands', async () => {
    const id = await queue(proposed('fragrance', 'sweetness_preference', 0.3));
    assert.equal((await confirm(p, p.subjectToken, [{ proposal_id: id, action: 'reject' }])).status, 200);
    assertError(await confirm(p, p.subjectToken, [{ proposal_id: id, action: 'confirm' }]), 409, 'conflict');
    assert.equal((await proposalsOf(p)).find((x) => x.proposal_id === id)?.status, 'rejected');
  });

  it('reject leaves the claim as it was, and is audited', async () => {
    const id = await queue(proposed('core', 'risk_tolerance', 0.99));
    const r = await confirm(p, p.subjectToken, [{ proposal_id: id, action: 'reject' }]);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.claims, []);
    assert.equal((await readKey(p, p.subjectToken, 'risk_tolerance'))?.value, 0.35);
    assert.ok((await auditActions(p, 'proposal_rejected')).some((e) => e.detail === id));
  });

  it('edit applies the subject’s version (validated, same key)', async () => {
    const id = await queue(proposed('core', 'ambiguity_tolerance', 0.9));
    const wrongKey = await confirm(p, p.subjectToken, [
      { proposal_id: id, action: 'edit', claim: proposed('core', 'risk_tolerance', 0.2) },
    ]);
    assertError(wrongKey, 400, 'invalid_request');
    const bad = await confirm(p, p.subjectToken, [
      { proposal_id: id, action: 'edit', claim: proposed('core', 'ambiguity_tolerance', 2) },
    ]);
    assertError(bad, 400, 'invalid_request');
    assert.match(bad.json.error_description, /ambiguity_tolerance/);
    const r = await confirm(p, p.subjectToken, [
      {
        proposal_id: id,
        action: 'edit',
        claim: proposed('core', 'ambiguity_tolerance', 0.4, { source: { kind: 'user_stated' } }),
      },
    ]);
    assert.equal(r.status, 200, r.text);
    const read = await readKey(p, p.subjectToken, 'ambiguity_tolerance');
    assert.equal(read?.value, 0.4);
    assert.equal(read?.source.kind, 'user_stated');
    assert.equal((await proposalsOf(p)).find((x) => x.proposal_id === id)?.edited, true);
  });

  it('a failing decision rolls back the whole call', async () => {
    const id = await queue(proposed('core', 'budget_sensitivity', 0.1));
    const r = await confirm(p, p.subjectToken, [
      { proposal_id: id, action: 'confirm' },
      { proposal_id: 'ppx:proposal:nope', action: 'confirm' },
    ]);
    assertError(r, 404, 'not_found');
    assert.equal((await proposalsOf(p)).find((x) => x.proposal_id === id)?.status, 'pending');
    assert.equal((await readKey(p, p.subjectToken, 'budget_sensitivity'))?.value, 0.7);
  });

  it('confirms a stored claim by id: last_confirmed_at, audited', async () => {
    const r = await confirm(p, p.subjectToken, [
      { claim_id: 'ppx:claim:demo-core-explanation', action: 'confirm' },
    ]);
    assert.equal(r.status, 200, r.text);
    const read = await readKey(p, p.subjectToken, 'explanation_depth_preference');
    assert.equal(read?.review?.review_status, 'confirmed');
    assert.ok(read?.lifecycle?.last_confirmed_at);
    assert.ok((await auditActions(p, 'claim_confirmed')).length > 0);
  });

  it('a grant with confirm_update decides only proposals in its own scope', async () => {
    const inScope = await queue(
      proposed('fragrance', 'occasion_bias', { office: 0.9 }, { value_type: 'map<string,float>' }),
    );
    const outOfScope = await queue(proposed('core', 'social_energy_preference', 0.1));
    const confirmer = await p.grant({
      allowed_operations: ['read', 'confirm_update'],
      allowed_namespaces: ['fragrance'],
    });
    assertError(
      await confirm(p, confirmer.token, [{ proposal_id: outOfScope, action: 'confirm' }]),
      404,
      'not_found',
    );
    const r = await confirm(p, confirmer.token, [{ proposal_id: inScope, action: 'confirm' }]);
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.subject_id, /^ppx:subject:/);
    assert.deepEqual((await readKey(p, p.subjectToken, 'fragrance.occasion_bias'))?.value, { office: 0.9 });
    // A grant without confirm_update may not decide at all.
    assertError(
      await confirm(p, writer.token, [{ proposal_id: outOfScope, action: 'reject' }]),
      403,
      'insufficient_scope',
    );
  });

  it('history lists each change with provenance; filters by claim, since; paginates', async () => {
    const all: { change: string; claim_id: string; seq: number }[] = [];
    let cursor: string | undefined;
    do {
      const r = await api(p.url, `/v1/profile/history?limit=7${cursor ? `&cursor=${cursor}` : ''}`, {
        token: p.subjectToken,
      });
      assert.equal(r.status, 200, r.text);
      all.push(...r.json.entries);
      cursor = r.json.next_cursor;
    } while (cursor);
    assert.equal(all.filter((e) => e.change === 'imported').length, 20);
    assert.deepEqual(
      all.map((e) => e.seq),
      [...all.map((e) => e.seq)].sort((a, b) => a - b),
    );
    const one = await api(p.url, '/v1/profile/history?claim_id=ppx:claim:demo-frag-freshness', {
      token: p.subjectToken,
    });
    assert.deepEqual(
      one.json.entries.map((e: { change: string }) => e.change),
      ['imported', 'confirmed'],
    );
    const since = await api(p.url, `/v1/profile/history?since=${encodeURIComponent(t0)}`, {
      token: p.subjectToken,
    });
    assert.ok(since.json.entries.every((e: { change: string }) => e.change !== 'imported'));
    assertError(await api(p.url, '/v1/profile/history', { token: writer.token }), 403, 'access_denied');
    assertError(
      await api(p.url, '/v1/profile/history?cursor=zzz', { token: p.subjectToken }),
      400,
      'invalid_request',
    );
  });

  it('diff between two instants: changed claims with before and after', async () => {
    const r = await api(p.url, `/v1/profile/diff?from=${encodeURIComponent(t0)}`, { token: p.subjectToken });
    assert.equal(r.status, 200, r.text);
    const changed = new Map(
      r.json.changed.map((c: { claim_id: string; before: { value: unknown }; after: { value: unknown } }) => [
        c.claim_id,
        c,
      ]),
    );
    const fresh = changed.get('ppx:claim:demo-frag-freshness') as {
      before: { value: number };
      after: { value: number };
    };
    assert.equal(fresh.before.value, 0.6);
    assert.equal(fresh.after.value, 0.91);
    assert.ok(!changed.has('ppx:claim:demo-core-risk'), 'a rejected proposal changes nothing');
    assert.deepEqual(r.json.added, []);
    assert.deepEqual(r.json.removed, []);
    const empty = await api(
      p.url,
      `/v1/profile/diff?from=${encodeURIComponent(t0)}&to=${encodeURIComponent(t0)}`,
      {
        token: p.subjectToken,
      },
    );
    assert.deepEqual([empty.json.added, empty.json.changed, empty.json.removed], [[], [], []]);
    assertError(await api(p.url, '/v1/profile/diff', { token: p.subjectToken }), 400, 'invalid_request');
    assert.ok((await storedClaims(p)).length > 0);
  });
});
