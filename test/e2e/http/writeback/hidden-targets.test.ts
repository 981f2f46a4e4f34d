import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { comparableRun } from '../../../support/compare.ts';
import { type ApiResponse, api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { confirm, propose, proposed, storedClaims } from '../../../support/writeback.ts';

// Issue 10, leak 1: a proposal may only target claims its grant can see. For a claim hidden from
// the grant it behaves exactly as if no claim existed: a fresh id, the policy decided as for an
// absent claim, confirmation never overwriting it, and its deletion closing nothing the grantee
// could observe. Two providers, one holding the hidden claim and one where the subject deleted it,
// answer the same calls the same way (ids the calls mint compared by position).

const HIDDEN = 'ppx:claim:demo-core-novelty';

/** A grant over `core` limited to novelty_tolerance, used in a domain the stored claim does not name. */
const LIMITED = {
  allowed_namespaces: ['core'],
  allowed_claim_keys: ['novelty_tolerance'],
  allowed_domains: ['dating'],
  expires_at: new Date(Date.now() + 86_400_000).toISOString(),
  allowed_operations: ['read', 'query', 'propose_update', 'confirm_update'] as (
    | 'read'
    | 'query'
    | 'propose_update'
    | 'confirm_update'
  )[],
};

/**
 * The demo provider with its novelty claim stated by the subject and applicable only to
 * fragrance, travel and media (so hidden from LIMITED), or without it at all.
 */
async function world(withHidden: boolean, clock: () => Date): Promise<TestProvider> {
  const p = await startTestProvider({ clock });
  const stated = await propose(p, p.subjectToken, [
    proposed('core', 'novelty_tolerance', 0.62, {
      claim_id: HIDDEN,
      confidence: 0.78,
      source: { kind: 'user_stated' },
      applicability: { domains: ['fragrance', 'travel', 'media'] },
    }),
  ]);
  assert.equal(stated.status, 200, stated.text);
  assert.equal(stated.json.claims[0].claim_id, HIDDEN);
  if (!withHidden) {
    const r = await api(p.url, `/v1/profile/claims/${encodeURIComponent(HIDDEN)}`, {
      method: 'DELETE',
      token: p.subjectToken,
    });
    assert.equal(r.status, 200, r.text);
  }
  return p;
}

/** Status and body of each answer, as comparableRun compares them. */
function comparable(responses: readonly ApiResponse[]): unknown {
  return comparableRun(responses.map((r) => ({ status: r.status, body: r.json })));
}

describe('write-back never finds a claim hidden from the grant', () => {
  let hidden: TestProvider;
  let absent: TestProvider;
  before(async () => {
    // One frozen clock for both, so that every time the calls state is the same in both.
    const now = new Date();
    const clock = () => now;
    [hidden, absent] = await Promise.all([world(true, clock), world(false, clock)]);
  });
  after(() => Promise.all([hidden.close(), absent.close()]));

  it('the grant sees no claim in either provider', async () => {
    for (const p of [hidden, absent]) {
      const { token } = await p.grant(LIMITED);
      const r = await api(p.url, '/v1/profile/query', { token, body: {} });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.claims, []);
    }
    assert.ok((await storedClaims(hidden)).some((c) => c.claim_id === HIDDEN));
    assert.ok(!(await storedClaims(absent)).some((c) => c.claim_id === HIDDEN));
  });

  it('auto_for_low_risk: applied under a fresh id, the hidden user_stated claim untouched', async () => {
    const run = async (p: TestProvider) => {
      const { token } = await p.grant({ ...LIMITED, writeback_policy: 'auto_for_low_risk' });
      const r = await propose(p, token, [proposed('core', 'novelty_tolerance', 0.3, { claim_id: HIDDEN })]);
      const read = await api(p.url, '/v1/profile/query', { token, body: {} });
      return [r, read];
    };
    const [inHidden, inAbsent] = [await run(hidden), await run(absent)];
    const [r] = inHidden;
    assert.equal(r?.status, 200, r?.text);
    assert.equal(r?.json.proposals[0].status, 'applied');
    assert.notEqual(r?.json.proposals[0].claim_id, HIDDEN);
    assert.ok(!r?.text.includes(HIDDEN), r?.text);
    assert.deepEqual(comparable(inHidden), comparable(inAbsent));
    const kept = (await storedClaims(hidden)).find((c) => c.claim_id === HIDDEN);
    assert.equal(kept?.value, 0.62);
    assert.equal(kept?.source.kind, 'user_stated');
  });

  it('review_required: the grant confirms its own proposal; the hidden claim is not overwritten', async () => {
    const run = async (p: TestProvider) => {
      const { token } = await p.grant({ ...LIMITED, writeback_policy: 'review_required' });
      const queued = await propose(p, token, [proposed('core', 'novelty_tolerance', 0.25)]);
      const proposalId = queued.json.proposals?.[0]?.proposal_id;
      const decided = await confirm(p, token, [{ proposal_id: proposalId, action: 'confirm' }]);
      const read = await api(p.url, '/v1/profile/query', { token, body: {} });
      return [queued, decided, read];
    };
    const [inHidden, inAbsent] = [await run(hidden), await run(absent)];
    assert.equal(inHidden[0]?.status, 202, inHidden[0]?.text);
    assert.equal(inHidden[1]?.status, 200, inHidden[1]?.text);
    assert.ok(inHidden.every((r) => !r.text.includes(HIDDEN)));
    assert.deepEqual(comparable(inHidden), comparable(inAbsent));
    assert.equal((await storedClaims(hidden)).find((c) => c.claim_id === HIDDEN)?.value, 0.62);
  });

  it('the subject confirms: the claim is written under the id the grantee was told, beside the hidden one', async () => {
    const run = async (p: TestProvider) => {
      const { token } = await p.grant({ ...LIMITED, writeback_policy: 'review_required' });
      const queued = await propose(p, token, [proposed('core', 'novelty_tolerance', 0.2)]);
      const told = queued.json.proposals?.[0];
      const decided = await confirm(p, p.subjectToken, [
        { proposal_id: told?.proposal_id, action: 'confirm' },
      ]);
      assert.equal(decided.status, 200, decided.text);
      assert.equal(decided.json.decisions[0].claim_id, told?.claim_id);
      const read = await api(p.url, '/v1/profile/query', { token, body: {} });
      return [queued, read];
    };
    const [inHidden, inAbsent] = [await run(hidden), await run(absent)];
    assert.ok(inHidden.every((r) => !r.text.includes(HIDDEN)));
    assert.deepEqual(comparable(inHidden), comparable(inAbsent));
    assert.equal((await storedClaims(hidden)).find((c) => c.claim_id === HIDDEN)?.value, 0.62);
  });

  it('deleting the hidden claim closes no proposal the grantee made', async () => {
    const { token } = await hidden.grant({ ...LIMITED, writeback_policy: 'review_required' });
    const queued = await propose(hidden, token, [proposed('core', 'novelty_tolerance', 0.15)]);
    assert.equal(queued.status, 202, queued.text);
    const deleted = await api(hidden.url, `/v1/profile/claims/${encodeURIComponent(HIDDEN)}`, {
      method: 'DELETE',
      token: hidden.subjectToken,
    });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.json.closed_proposal_ids, []);
    const decided = await confirm(hidden, token, [
      { proposal_id: queued.json.proposals[0].proposal_id, action: 'reject' },
    ]);
    assert.equal(decided.status, 200, decided.text);
    assert.equal(decided.json.decisions[0].status, 'rejected');
  });

  it('a target hidden since the proposal was made: a grantee deciding it gets what a deletion gives', async () => {
    const p = hidden;
    const { token } = await p.grant({
      allowed_operations: ['read', 'propose_update', 'confirm_update'],
      writeback_policy: 'review_required',
    });
    const restate = (domains: string[]) =>
      propose(p, p.subjectToken, [
        proposed('core', 'risk_tolerance', 0.35, {
          claim_id: 'ppx:claim:demo-core-risk',
          applicability: { domains },
        }),
      ]);
    const queued = await propose(p, token, [proposed('core', 'risk_tolerance', 0.9)]);
    assert.equal(queued.status, 202, queued.text);
    assert.equal(queued.json.proposals[0].claim_id, 'ppx:claim:demo-core-risk', 'a visible target');
    const decision = [{ proposal_id: queued.json.proposals[0].proposal_id, action: 'confirm' }];
    // The subject moves the claim out of the grant's domain: the grant no longer sees it.
    assert.equal((await restate(['travel'])).status, 200);
    const whileHidden = await confirm(p, token, decision);
    const deleted = await api(p.url, '/v1/profile/claims/ppx:claim:demo-core-risk', {
      method: 'DELETE',
      token: p.subjectToken,
    });
    assert.equal(deleted.status, 200, deleted.text);
    const afterDeletion = await confirm(p, token, decision);
    assert.equal(whileHidden.status, 409, whileHidden.text);
    assert.deepEqual(
      [whileHidden.status, whileHidden.json],
      [afterDeletion.status, afterDeletion.json],
      'hidden and deleted look the same',
    );
  });
});
