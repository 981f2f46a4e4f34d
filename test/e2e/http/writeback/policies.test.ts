import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EffectiveProfile } from '../../../../src/model/effective-profile.ts';
import { assertError, assertNoInternalId } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import {
  auditActions,
  claimByKey,
  proposalsOf,
  propose,
  proposed,
  readKey,
  storedClaims,
  WRITE_GRANT,
} from '../../../support/writeback.ts';

// propose_updates under each writeback policy (SPEC §6.6, docs/writeback.md), and bad proposals.

describe('propose-updates: writeback policies', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('forbidden: 403 writeback_forbidden, nothing stored, the refusal audited', async () => {
    const { token } = await p.grant({ ...WRITE_GRANT, writeback_policy: 'forbidden' });
    const before_ = await storedClaims(p);
    const r = await propose(p, token, [proposed('fragrance', 'freshness_preference', 0.9)]);
    assertError(r, 403, 'writeback_forbidden');
    assert.deepEqual(await storedClaims(p), before_);
    assert.deepEqual(await proposalsOf(p), []);
    const denied = await auditActions(p, 'denied');
    assert.ok(denied.some((e) => e.detail === 'propose_updates: writeback_forbidden'));
  });

  it('forbidden refuses whatever the body holds (WIRE-NOTES §2.7): an empty or malformed one too', async () => {
    const { token } = await p.grant({ ...WRITE_GRANT, writeback_policy: 'forbidden' });
    for (const body of [{ claims: [] }, { claims: 'x' }, { unknown: true }, '{not json', '']) {
      const r = await api(p.url, '/v1/profile/propose-updates', {
        token,
        body,
        headers: { 'content-type': 'application/json' },
      });
      assertError(r, 403, 'writeback_forbidden');
      assert.equal(r.json.error_description, 'the grant does not allow this grantee to write to the profile');
    }
  });

  it('a grant without propose_update: 403 insufficient_scope', async () => {
    const { token } = await p.grant({ writeback_policy: 'allow' });
    const r = await propose(p, token, [proposed('fragrance', 'freshness_preference', 0.9)]);
    assertError(r, 403, 'insufficient_scope');
  });

  it('review_required: 202 proposal_created, invisible to reads until confirmed', async () => {
    const { token, grant } = await p.grant({ ...WRITE_GRANT, writeback_policy: 'review_required' });
    const r = await propose(p, token, [proposed('fragrance', 'freshness_preference', 0.95)], {
      purpose: 'recommendation',
    });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.writeback, 'proposal_created');
    assert.ok(EffectiveProfile.safeParse(r.json).success, r.text);
    assert.deepEqual(r.json.claims, []);
    assert.equal(r.json.proposals.length, 1);
    assert.equal(r.json.proposals[0].status, 'pending');
    assert.equal(r.json.proposals[0].key, 'fragrance.freshness_preference');
    assert.equal(r.json.grant.grant_id, grant.grant_id);
    assert.match(r.json.subject_id, /^ppx:subject:/);
    assertNoInternalId(r);

    const pending = await proposalsOf(p, 'pending');
    const mine = pending.find((x) => x.proposal_id === r.json.proposals[0].proposal_id);
    assert.ok(mine);
    assert.equal(mine.claim.review?.review_status, 'pending_confirmation');
    assert.equal(mine.grant_id, grant.grant_id);
    assert.equal(mine.client_id, 'fragrance-demo');
    // Invisible to the grantee and the subject alike: the stored claim is unchanged.
    assert.equal((await readKey(p, token, 'fragrance.freshness_preference'))?.value, 0.6);
    assert.equal((await readKey(p, p.subjectToken, 'fragrance.freshness_preference'))?.value, 0.6);
    const created = await auditActions(p, 'proposal_created');
    assert.ok(
      created.some(
        (e) => e.grant_id === grant.grant_id && e.claim_keys[0] === 'fragrance.freshness_preference',
      ),
    );
  });

  it('auto_for_low_risk: low-risk observed applied; high-confidence inferred and over user_stated queued', async () => {
    const { token, grant } = await p.grant({ ...WRITE_GRANT, writeback_policy: 'auto_for_low_risk' });
    const r = await propose(p, token, [
      proposed('fragrance', 'projection_tolerance', 0.3, { source: { kind: 'observed' }, confidence: 0.9 }),
      proposed('core', 'sensory_intensity_preference', 0.8, {
        source: { kind: 'inferred' },
        confidence: 0.85,
      }),
      proposed('fragrance', 'intensity_preference', 0.1, { source: { kind: 'observed' }, confidence: 0.5 }),
    ]);
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.writeback, 'proposal_created');
    assert.deepEqual(
      r.json.proposals.map((x: { key: string; status: string }) => [x.key, x.status]),
      [
        ['fragrance.projection_tolerance', 'applied'],
        ['sensory_intensity_preference', 'pending'],
        ['fragrance.intensity_preference', 'pending'],
      ],
    );
    // The applied one updated the existing claim in place (same id), with provenance kept.
    const claims = await storedClaims(p);
    const projection = claimByKey(claims, 'fragrance.projection_tolerance');
    assert.equal(projection?.claim_id, 'ppx:claim:demo-frag-projection');
    assert.equal(projection?.value, 0.3);
    assert.equal(r.json.claims.length, 1);
    assert.equal(r.json.claims[0].claim_id, 'ppx:claim:demo-frag-projection');
    assert.equal((await readKey(p, token, 'fragrance.projection_tolerance'))?.value, 0.3);
    // The queued ones did not touch the stored claims (a user_stated claim is never overwritten).
    assert.equal(claimByKey(claims, 'sensory_intensity_preference')?.value, 0.55);
    assert.equal(claimByKey(claims, 'fragrance.intensity_preference')?.value, 0.45);
    const applied = await auditActions(p, 'proposal_applied');
    assert.ok(applied.some((e) => e.grant_id === grant.grant_id && e.actor.id === 'fragrance-demo'));
    // Provenance in the history: grantee, grant, proposal, time.
    const profile = await p.deps.store.getProfileBySubject(p.subjectId);
    const h = await p.deps.store.listClaimHistory({
      profile_id: profile!.profile_id,
      claim_id: 'ppx:claim:demo-frag-projection',
      limit: 50,
    });
    const last = h.entries.at(-1);
    assert.equal(last?.change, 'applied_proposal');
    assert.deepEqual(last?.actor, { kind: 'grantee', id: 'fragrance-demo' });
    assert.equal(last?.grant_id, grant.grant_id);
    assert.equal(last?.proposal_id, r.json.proposals[0].proposal_id);
  });

  it('allow: applied, 200 writeback none; a new key gets a fresh claim id of the provider', async () => {
    const { token, grant } = await p.grant({
      ...WRITE_GRANT,
      writeback_policy: 'allow',
      allowed_namespaces: ['core', 'fragrance', 'travel'],
      allowed_domains: ['fragrance', 'travel'],
    });
    const profile = await p.deps.store.getProfileBySubject(p.subjectId);
    await p.store.deleteClaims(profile!.profile_id, ['ppx:claim:demo-travel-pace']);
    const r = await propose(p, token, [
      proposed('fragrance', 'freshness_preference', 0.2, { claim_id: 'ppx:claim:demo-frag-freshness' }),
      proposed('travel', 'pace_preference', 0.9, { claim_id: 'ppx:claim:chosen-by-grantee' }),
    ]);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.writeback, 'none');
    assert.deepEqual(
      r.json.proposals.map((x: { status: string }) => x.status),
      ['applied', 'applied'],
    );
    const claims = await storedClaims(p);
    assert.equal(claimByKey(claims, 'fragrance.freshness_preference')?.value, 0.2);
    const pace = claimByKey(claims, 'travel.pace_preference');
    assert.equal(pace?.value, 0.9);
    assert.notEqual(pace?.claim_id, 'ppx:claim:chosen-by-grantee');
    assert.match(pace?.claim_id ?? '', /^ppx:claim:[0-9a-f-]{36}$/);
    assert.equal(pace?.review?.review_status, 'unreviewed');
    // Applied without review, so the audit trail is the subject's only record of it: one
    // proposal_applied entry per proposal, naming its key and its proposal, and nothing queued.
    await assertProposalAudit(grant.grant_id, 'proposal_applied', r.json.proposals, [
      'fragrance.freshness_preference',
      'travel.pace_preference',
    ]);
    await assertProposalAudit(grant.grant_id, 'proposal_created', [], []);
  });

  it('allow: a user_stated claim is still queued, and a grantee cannot apply a "user_stated" claim', async () => {
    const { token, grant } = await p.grant({ ...WRITE_GRANT, writeback_policy: 'allow' });
    const r = await propose(p, token, [
      proposed('fragrance', 'note_aversions', ['vanilla'], { value_type: 'string_list' }),
      proposed('core', 'explanation_depth_preference', 0.1, { source: { kind: 'user_stated' } }),
    ]);
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(
      r.json.proposals.map((x: { status: string }) => x.status),
      ['pending', 'pending'],
    );
    const claims = await storedClaims(p);
    assert.deepEqual(claimByKey(claims, 'fragrance.note_aversions')?.value, ['oud', 'patchouli_heavy']);
    assert.equal(claimByKey(claims, 'explanation_depth_preference')?.value, 0.8);
    // Queued despite `allow`: audited as created, not as applied.
    await assertProposalAudit(grant.grant_id, 'proposal_created', r.json.proposals, [
      'explanation_depth_preference',
      'fragrance.note_aversions',
    ]);
    await assertProposalAudit(grant.grant_id, 'proposal_applied', [], []);
  });

  /**
   * The grant's `action` entries are exactly one per proposal, by the grantee, each with claim_keys
   * [its key] and its proposal id as detail; `keys` (sorted) pins the keys independently of `r`.
   */
  async function assertProposalAudit(
    grantId: string,
    action: string,
    proposals: { proposal_id: string; key: string }[],
    keys: string[],
  ) {
    const events = (await auditActions(p, action)).filter((e) => e.grant_id === grantId);
    assert.deepEqual(
      events.map((e) => `${JSON.stringify(e.claim_keys)} ${e.detail}`).sort(),
      proposals.map((x) => `${JSON.stringify([x.key])} ${x.proposal_id}`).sort(),
      action,
    );
    assert.deepEqual(events.flatMap((e) => e.claim_keys).sort(), keys, action);
    for (const e of events) assert.deepEqual(e.actor, { kind: 'grantee', id: 'fragrance-demo' });
  }
});

describe('propose-updates: bad proposals name the claim and the problem, nothing stored', () => {
  let p: TestProvider;
  let token: string;
  before(async () => {
    p = await startTestProvider();
    token = (await p.grant({ ...WRITE_GRANT, writeback_policy: 'allow' })).token;
  });
  after(() => p.close());

  const good = proposed('fragrance', 'freshness_preference', 0.3);
  const cases: [string, unknown, number, string, RegExp][] = [
    [
      'an invalid claim (no source)',
      { ...good, source: undefined },
      400,
      'invalid_request',
      /claims\[1\].*source/,
    ],
    [
      'an unknown key',
      proposed('fragrance', 'colour_preference', 0.3),
      400,
      'invalid_request',
      /claims\[1\] \(fragrance\.colour_preference\).*not defined/,
    ],
    [
      'an out-of-range confidence',
      { ...good, key: 'sweetness_preference', confidence: 1.5 },
      400,
      'invalid_request',
      /claims\[1\] \(fragrance\.sweetness_preference\): confidence/,
    ],
    [
      'a value outside 0..1',
      proposed('core', 'risk_tolerance', 7),
      400,
      'invalid_request',
      /claims\[1\] \(risk_tolerance\).*between 0\.0 and 1\.0/,
    ],
    [
      'an unknown field',
      { ...good, key: 'sweetness_preference', colour: 'red' },
      400,
      'invalid_request',
      /claims\[1\].*unknown field/,
    ],
    [
      'a namespace outside the grant',
      proposed('travel', 'pace_preference', 0.3),
      403,
      'insufficient_scope',
      /claims\[1\] \(travel\.pace_preference\).*namespace "travel"/,
    ],
    ['the same key twice', good, 400, 'invalid_request', /claims\[1\].*more than once/],
  ];
  for (const [name, bad, status, code, pattern] of cases) {
    it(name, async () => {
      const claims = await storedClaims(p);
      const r = await propose(p, token, [good, bad]);
      assertError(r, status, code);
      assert.match(r.json.error_description, pattern);
      assert.ok(Array.isArray(r.json.details.problems));
      assert.equal(r.json.details.problems[0].index, 1);
      assert.deepEqual(await storedClaims(p), claims);
      assert.deepEqual(await proposalsOf(p), []);
    });
  }

  it('more than 50 claims, or none, is 400', async () => {
    assertError(await propose(p, token, []), 400, 'invalid_request');
    assertError(
      await propose(
        p,
        token,
        Array.from({ length: 51 }, () => good),
      ),
      400,
      'invalid_request',
    );
    assert.deepEqual(await proposalsOf(p), []);
  });

  it('a key outside allowed_claim_keys is 403 naming it', async () => {
    const limited = await p.grant({
      ...WRITE_GRANT,
      writeback_policy: 'allow',
      allowed_claim_keys: ['novelty_tolerance'],
    });
    const r = await propose(p, limited.token, [good]);
    assertError(r, 403, 'insufficient_scope');
    assert.match(r.json.error_description, /fragrance\.freshness_preference/);
  });
});
