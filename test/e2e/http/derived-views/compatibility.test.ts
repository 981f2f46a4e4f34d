import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantDraft } from '../../../../src/operations/grants/consent-grants.ts';
import {
  assertView,
  grantKeys,
  importSecondSubject,
  SECOND_RAW,
  SECOND_SUBJECT,
} from '../../../support/derived-views.ts';
import { assertError } from '../../../support/http-api.ts';
import { officialErrors, SKIP_NO_SHARED } from '../../../support/official-schemas.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// compatibility over two subjects (WIRE-NOTES §6): the caller's grant and a counterpart grant of
// a second subject held by the same client, both active with purpose `matching`. Only keys both
// grants allow and both subjects hold are compared, and no raw value ever appears.

/** A dating-domain matching grant: the demo's novelty claim belongs to other domains (deny). */
const MATCHING: Partial<GrantDraft> = {
  purposes: ['matching'],
  allowed_domains: ['dating'],
  allowed_namespaces: ['core'],
};
const A_KEYS = ['ambiguity_tolerance', 'novelty_tolerance', 'risk_tolerance', 'social_energy_preference'];
const B_KEYS = ['budget_sensitivity', 'novelty_tolerance', 'risk_tolerance', 'social_energy_preference'];

describe('compatibility over two subjects', () => {
  let p: TestProvider;
  let a: Awaited<ReturnType<TestProvider['grant']>>;
  let b: Awaited<ReturnType<TestProvider['grant']>>;
  before(async () => {
    p = await startTestProvider();
    await importSecondSubject(p);
    a = await p.grant({ ...MATCHING, allowed_claim_keys: A_KEYS });
    b = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT, allowed_claim_keys: B_KEYS });
  });
  after(() => p.close());

  const compat = (counterpart_grant_id: string, token = a.token, extra = {}) =>
    api(p.url, '/v1/derived-views/compatibility', { token, body: { counterpart_grant_id, ...extra } });

  it('compares only keys both grants allow and both subjects hold, with exact alignments', async () => {
    const r = await compat(b.grant.grant_id);
    assertView(r, 'compatibility');
    // A sees ambiguity, risk, social (novelty is a fragrance/travel/media claim: cross-domain,
    // denied); B allows budget, novelty, risk, social. Shared: risk and social.
    assert.deepEqual(r.json.basis, ['core.risk_tolerance', 'core.social_energy_preference']);
    for (const k of grantKeys(r.json.basis)) assert.ok(A_KEYS.includes(k) && B_KEYS.includes(k), k);
    // risk 0.35 vs 0.41 (weight min(0.6, 0.7)); social 0.48 vs 0.5107 (weight min(0.9, 0.5)).
    assert.deepEqual(r.json.signals, {
      'core.risk_tolerance': 0.94,
      'core.social_energy_preference': 0.9693,
      overall_alignment: 0.9533,
    });
    for (const raw of [...SECOND_RAW, '0.35', '0.48', '0.58']) assert.ok(!r.text.includes(raw), raw);
    assert.ok(!r.text.includes(b.grant.grant_id), 'counterpart grant id echoed');
  });

  it("the view is the caller subject's, and says nothing of the counterpart's identity", async () => {
    const r = await compat(b.grant.grant_id);
    const mine = await api(p.url, '/v1/profile/summary', { token: a.token });
    const theirs = await api(p.url, '/v1/profile/summary', { token: b.token });
    assert.equal(r.json.subject_id, mine.json.subject_id);
    assert.ok(!r.text.includes(theirs.json.subject_id));
    assert.ok(!r.text.includes('compat-0002'));
  });

  it('is valid against the official derived-view schema', { skip: SKIP_NO_SHARED }, async () => {
    const r = await compat(b.grant.grant_id);
    assert.deepEqual(officialErrors('derived-view', r.json), []);
  });

  it('both subjects see the read in their audit log, with the keys compared', async () => {
    const r = await compat(b.grant.grant_id);
    for (const g of [a, b]) {
      const qs = `?grant_id=${encodeURIComponent(g.grant.grant_id)}&action=derived_view`;
      const events = await api(p.url, `/v1/audit/events${qs}`, { token: g.token });
      const e = events.json.events.find((x: { detail: string }) => x.detail.endsWith(r.json.view_id));
      assert.ok(e, `no audit event for ${g.grant.grant_id}`);
      assert.deepEqual(e.claim_keys, ['risk_tolerance', 'social_energy_preference']);
    }
  });

  it('a counterpart grant of another client is 404, exactly like one that does not exist', async () => {
    const other = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT, client_id: 'travel-demo' });
    const r1 = await compat(other.grant.grant_id);
    const r2 = await compat('ppx:grant:does-not-exist');
    assertError(r1, 404, 'not_found');
    assertError(r2, 404, 'not_found');
    assert.equal(
      r1.json.error_description.replace(other.grant.grant_id, 'ID'),
      r2.json.error_description.replace('ppx:grant:does-not-exist', 'ID'),
    );
    assert.equal(Object.keys(r1.json).sort().join(), Object.keys(r2.json).sort().join());
  });

  it('a counterpart grant without purpose matching is 403 insufficient_scope', async () => {
    const rec = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT, purposes: ['recommendation'] });
    const r = await compat(rec.grant.grant_id);
    assertError(r, 403, 'insufficient_scope');
    assert.match(r.json.error_description, /counterpart grant: .*purpose "matching"/);
  });

  it('a caller grant without purpose matching is 403 insufficient_scope', async () => {
    const rec = await p.grant({ ...MATCHING, purposes: ['recommendation'] });
    assertError(await compat(b.grant.grant_id, rec.token), 403, 'insufficient_scope');
  });

  it('a revoked counterpart grant is 403 insufficient_scope naming its state (the caller token is fine)', async () => {
    const gone = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT });
    await api(p.url, '/v1/consent/revoke', { token: gone.token, body: { grant_id: gone.grant.grant_id } });
    const r = await compat(gone.grant.grant_id);
    assertError(r, 403, 'insufficient_scope');
    assert.equal(r.json.error_description, 'the counterpart grant is revoked');
    assert.doesNotMatch(r.headers.get('www-authenticate') ?? '', /invalid_token/);
  });

  it('the same subject twice is 400 invalid_request', async () => {
    const again = await p.grant({ ...MATCHING });
    const r = await compat(again.grant.grant_id);
    assertError(r, 400, 'invalid_request');
    assert.match(r.json.error_description, /counterpart_grant_id/);
    assertError(await compat(a.grant.grant_id), 400, 'invalid_request');
  });

  it('a missing counterpart_grant_id or a target is 400 naming the field', async () => {
    const none = await api(p.url, '/v1/derived-views/compatibility', { token: a.token, body: {} });
    assertError(none, 400, 'invalid_request');
    assert.match(none.json.error_description, /counterpart_grant_id/);
    const target = await compat(b.grant.grant_id, a.token, { target: { risk_tolerance: 0.5 } });
    assertError(target, 400, 'invalid_request');
    assert.match(target.json.error_description, /target/);
  });
});
