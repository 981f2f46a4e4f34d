import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertView, grantKeys } from '../../../support/derived-views.ts';
import { assertError, assertInvalidTokenChallenge } from '../../../support/http-api.ts';
import { officialErrors, SKIP_NO_SHARED } from '../../../support/official-schemas.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// POST /v1/derived-views/{match,recommendation_basis} over HTTP, under grants that allow only
// part of the demo profile: nothing outside the grant may appear (SPEC §4.7, §5.5).

const PARTIAL_KEYS = ['budget_sensitivity', 'novelty_tolerance', 'risk_tolerance'];

describe('derived views under a partial grant', () => {
  let p: TestProvider;
  let token: string;
  before(async () => {
    p = await startTestProvider();
    ({ token } = await p.grant({ allowed_namespaces: ['core'], allowed_claim_keys: PARTIAL_KEYS }));
  });
  after(() => p.close());

  const view = (kind: string, body: unknown, t = token) =>
    api(p.url, `/v1/derived-views/${kind}`, { token: t, body });

  it('recommendation_basis: basis is exactly the allowed keys held, never a fragrance key', async () => {
    const r = await view('recommendation_basis', {});
    assertView(r, 'recommendation_basis');
    assert.deepEqual(grantKeys(r.json.basis), PARTIAL_KEYS);
    assert.equal(r.json.grantee_id, 'fragrance-demo');
    const { grantee_id: _, ...rest } = r.json;
    assert.doesNotMatch(JSON.stringify(rest), /fragrance|travel|woody|oud|boutique/);
    // 0.5 + (value − 0.5) × confidence: budget 0.7 @ 0.85, risk 0.35 @ 0.6 (no decay on either).
    assert.equal(r.json.signals['core.budget_sensitivity'], 0.67);
    assert.equal(r.json.signals['core.risk_tolerance'], 0.41);
    assert.notEqual(r.json.signals['core.novelty_tolerance'], 0.62);
    assert.ok(!r.text.includes('0.62') && !r.text.includes('0.35'), r.text);
  });

  it('each kind is valid against the official derived-view schema', { skip: SKIP_NO_SHARED }, async () => {
    const rb = await view('recommendation_basis', { context: { occasion: 'date_night' } });
    assert.deepEqual(officialErrors('derived-view', rb.json), []);
    const m = await view('match', { target: { budget_sensitivity: 0.5 } });
    assert.deepEqual(officialErrors('derived-view', m.json), []);
  });

  it('expires one hour after creation, and the pairwise subject id is the one other reads show', async () => {
    const r = await view('recommendation_basis', {});
    assert.equal(Date.parse(r.json.expires_at) - Date.parse(r.json.created_at), 3_600_000);
    const summary = await api(p.url, '/v1/profile/summary', { token });
    assert.equal(r.json.subject_id, summary.json.subject_id);
  });

  it('never expires after the grant', async () => {
    const soon = new Date(Date.now() + 600_000).toISOString();
    const g = await p.grant({ allowed_namespaces: ['core'], expires_at: soon });
    const r = await view('recommendation_basis', {}, g.token);
    assertView(r, 'recommendation_basis');
    assert.equal(r.json.expires_at, soon);
  });

  it('match: per-key closeness, overall and coverage, over target keys inside the grant', async () => {
    const r = await view('match', { target: { budget_sensitivity: 0.5, 'core.risk_tolerance': 0.35 } });
    assertView(r, 'match');
    assert.deepEqual(r.json.signals, {
      'core.budget_sensitivity': 0.8,
      'core.risk_tolerance': 1,
      overall_match: 0.8828,
      coverage: 1,
    });
    assert.deepEqual(r.json.basis, ['core.budget_sensitivity', 'core.risk_tolerance']);
  });

  it('match: a target key outside the grant is 403 insufficient_scope, before anything is read', async () => {
    assertError(
      await view('match', { target: { social_energy_preference: 0.5 } }),
      403,
      'insufficient_scope',
    );
    assertError(
      await view('match', { target: { 'fragrance.intensity_preference': 0.5 } }),
      403,
      'insufficient_scope',
    );
  });

  it('match: bad targets are 400 naming the field', async () => {
    for (const [body, field] of [
      [{}, 'target'],
      [{ target: {} }, 'target'],
      [{ target: { budget_sensitivity: 2 } }, 'target.budget_sensitivity'],
      [{ target: { 'travel.accommodation_style': 0.5 } }, 'target.travel.accommodation_style'],
      [{ target: { budget_sensitivity: 0.5 }, counterpart_grant_id: 'x' }, 'counterpart_grant_id'],
    ] as const) {
      const r = await view('match', body);
      assertError(r, 400, 'invalid_request');
      assert.ok(r.json.error_description.includes(field), `${field} not named: ${r.json.error_description}`);
    }
  });

  it('a grant with core and part of fragrance: basis lies inside it', async () => {
    const g = await p.grant({ allowed_claim_keys: ['novelty_tolerance', 'fragrance.intensity_preference'] });
    const plain = await view('recommendation_basis', {}, g.token);
    assertView(plain, 'recommendation_basis');
    assert.deepEqual(plain.json.basis, ['core.novelty_tolerance', 'fragrance.intensity_preference']);
    // The context reaches resolution: the date-night modifier raises intensity.
    const night = await view('recommendation_basis', { context: { occasion: 'date_night' } }, g.token);
    assert.ok(
      night.json.signals['fragrance.intensity_preference'] >
        plain.json.signals['fragrance.intensity_preference'],
    );
    assert.doesNotMatch(night.text, /date_night/);
  });

  it('the purpose must be one the kind allows: 403 insufficient_scope, audited as denied', async () => {
    const g = await p.grant({ purposes: ['summarization'] });
    const r = await view('recommendation_basis', {}, g.token);
    assertError(r, 403, 'insufficient_scope');
    assert.match(r.json.error_description, /purpose "recommendation"/);
    assertError(
      await view('compatibility', { counterpart_grant_id: g.grant.grant_id }, token),
      403,
      'insufficient_scope',
    );
    const events = await api(p.url, `/v1/audit/events?grant_id=${encodeURIComponent(g.grant.grant_id)}`, {
      token: p.subjectToken,
    });
    const denied = events.json.events.filter((e: { action: string }) => e.action === 'denied');
    assert.equal(denied.length, 1);
    // Refused by what the grant allows, before the body (WIRE-NOTES §2.7): labelled by operation.
    assert.match(denied[0].detail, /^derive_recommendation_basis: insufficient_scope/);
  });

  it('the grant must allow read or query', async () => {
    const g = await p.grant({ allowed_operations: ['propose_update'] });
    assertError(await view('recommendation_basis', {}, g.token), 403, 'insufficient_scope');
    const q = await p.grant({ allowed_operations: ['query'], allowed_namespaces: ['core'] });
    assertView(await view('recommendation_basis', {}, q.token), 'recommendation_basis');
  });

  it('a subject token is refused (403): views are computed for a grantee', async () => {
    assertError(await view('recommendation_basis', {}, p.subjectToken), 403, 'insufficient_scope');
  });

  it('an unknown kind is 404; a revoked grant 401', async () => {
    const r = await view('risk_profile', {});
    assert.equal(r.status, 404);
    const g = await p.grant();
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: g.grant.grant_id } });
    assertInvalidTokenChallenge(await view('recommendation_basis', {}, g.token), 'grant_revoked');
  });

  it('audits the view with the keys used; the grantee sees its own event', async () => {
    const g = await p.grant({ allowed_namespaces: ['core'], allowed_claim_keys: ['budget_sensitivity'] });
    const r = await view('match', { target: { budget_sensitivity: 0.9 } }, g.token);
    assertView(r, 'match');
    const qs = `?grant_id=${encodeURIComponent(g.grant.grant_id)}&action=derived_view`;
    const mine = await api(p.url, `/v1/audit/events${qs}`, { token: p.subjectToken });
    assert.equal(mine.json.events.length, 1);
    assert.deepEqual(mine.json.events[0].claim_keys, ['budget_sensitivity']);
    assert.equal(mine.json.events[0].detail, `match view ${r.json.view_id}`);
    const theirs = await api(p.url, `/v1/audit/events${qs}`, { token: g.token });
    assert.equal(theirs.json.events.length, 1);
  });

  it('audits a recommendation_basis view with exactly its basis keys, in the grant naming', async () => {
    // A fragrance key in the grant too, so both namings are seen: core unprefixed, others qualified.
    const g = await p.grant({
      allowed_namespaces: ['core', 'fragrance'],
      allowed_claim_keys: ['risk_tolerance', 'budget_sensitivity', 'fragrance.freshness_preference'],
    });
    const r = await view('recommendation_basis', {}, g.token);
    assertView(r, 'recommendation_basis');
    const qs = `?grant_id=${encodeURIComponent(g.grant.grant_id)}&action=derived_view`;
    const mine = await api(p.url, `/v1/audit/events${qs}`, { token: p.subjectToken });
    assert.equal(mine.json.events.length, 1);
    assert.deepEqual([...mine.json.events[0].claim_keys].sort(), [
      'budget_sensitivity',
      'fragrance.freshness_preference',
      'risk_tolerance',
    ]);
    assert.equal(mine.json.events[0].detail, `recommendation_basis view ${r.json.view_id}`);
  });
});
