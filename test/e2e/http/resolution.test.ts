import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertNoInternalId, keysOf } from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Context resolution over HTTP (SPEC §5.3): which modifiers apply, what they change, and that
// modifiers of out-of-scope claims never show.

const HOT = 'ppx:modifier:demo-climate-hot-humid';
const DATE = 'ppx:modifier:demo-occasion-date-night';
const OFFICE = 'ppx:modifier:demo-occasion-office';

type Claim = { namespace: string; key: string; value: unknown; source: { kind: string } };

function claimValue(body: { claims: Claim[] }, qualified: string): unknown {
  const [ns, key] = qualified.includes('.') ? qualified.split('.') : ['core', qualified];
  const c = body.claims.find((x) => x.namespace === ns && x.key === key);
  assert.ok(c, `${qualified} missing`);
  return c.value;
}

describe('HTTP context resolution', () => {
  let p: TestProvider;
  let token: string;
  before(async () => {
    p = await startTestProvider();
    ({ token } = await p.grant());
  });
  after(() => p.close());

  const effective = (context: Record<string, unknown>, t = token) =>
    api(p.url, '/v1/profile/effective', { token: t, body: { context } });

  it('an empty context applies nothing and returns stored values', async () => {
    const r = await effective({});
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.applied_modifiers, []);
    assert.equal(claimValue(r.json, 'fragrance.freshness_preference'), 0.6);
    assert.equal(claimValue(r.json, 'fragrance.projection_tolerance'), 0.5);
  });

  it('hot_humid applies the climate modifier: freshness up, projection and sweetness down', async () => {
    const base = await effective({});
    const hot = await effective({ climate: 'hot_humid' });
    assert.equal(hot.status, 200, hot.text);
    assert.deepEqual(hot.json.applied_modifiers, [HOT]);
    const fresh = claimValue(hot.json, 'fragrance.freshness_preference') as number;
    const proj = claimValue(hot.json, 'fragrance.projection_tolerance') as number;
    assert.ok(fresh > (claimValue(base.json, 'fragrance.freshness_preference') as number));
    assert.ok(proj < (claimValue(base.json, 'fragrance.projection_tolerance') as number));
    // step = 0.15 * confidence 0.81 = 0.1215
    assert.equal(fresh, 0.7215);
    assert.equal(proj, 0.3785);
    assert.equal(claimValue(hot.json, 'fragrance.sweetness_preference'), 0.0585);
    // untouched claims keep their values, and the same set of claims comes back
    assert.equal(claimValue(hot.json, 'fragrance.intensity_preference'), 0.45);
    assert.deepEqual(keysOf(hot.json), keysOf(base.json));
    // an adjusted inferred claim is still inferred
    const projection = hot.json.claims.find((c: Claim) => c.key === 'projection_tolerance');
    assert.equal(projection.source.kind, 'inferred');
  });

  it('date_night applies the date-night modifier', async () => {
    const r = await effective({ occasion: 'date_night' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.applied_modifiers, [DATE]);
    // step = 0.15 * 0.7 = 0.105
    assert.equal(claimValue(r.json, 'fragrance.intensity_preference'), 0.555);
    assert.equal(claimValue(r.json, 'fragrance.projection_tolerance'), 0.605);
  });

  it('two matching modifiers apply in modifier_id order', async () => {
    const r = await effective({ climate: 'hot_humid', occasion: 'office' });
    assert.deepEqual(r.json.applied_modifiers, [HOT, OFFICE]);
    // 0.5 - 0.1215 - 0.15*0.76 (0.114) = 0.2645
    assert.equal(claimValue(r.json, 'fragrance.projection_tolerance'), 0.2645);
  });

  it('a context that matches nothing still reports applied_modifiers: []', async () => {
    for (const context of [{ climate: 'cold_dry' }, { occasion: 'funeral' }, { season: 'winter' }]) {
      const r = await effective(context);
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.applied_modifiers, [], JSON.stringify(context));
    }
  });

  it('modifiers of out-of-scope claims never leak', async () => {
    const coreOnly = await p.grant({ allowed_namespaces: ['core'] });
    const keyed = await p.grant({ allowed_claim_keys: ['novelty_tolerance', 'fragrance.family_preference'] });
    const travel = await p.grant({
      client_id: 'travel-demo',
      allowed_namespaces: ['core', 'travel'],
      allowed_domains: ['travel'],
    });
    for (const g of [coreOnly, keyed, travel]) {
      for (const context of [{ climate: 'hot_humid' }, { occasion: 'date_night' }, { occasion: 'office' }]) {
        const r = await effective(context, g.token);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.json.applied_modifiers, [], `${g.grant.grant_id} ${JSON.stringify(context)}`);
        assert.ok(!r.text.includes('ppx:modifier:'), r.text);
        assertNoInternalId(r);
      }
    }
    // narrowing the request to core has the same effect
    const r = await api(p.url, '/v1/profile/effective', {
      token,
      body: { context: { climate: 'hot_humid' }, requested_namespaces: ['core'] },
    });
    assert.deepEqual(r.json.applied_modifiers, []);
  });

  it('only the targeted key in scope: the modifier applies to that key alone', async () => {
    const g = await p.grant({ allowed_claim_keys: ['fragrance.freshness_preference'] });
    const r = await effective({ climate: 'hot_humid' }, g.token);
    assert.deepEqual(r.json.applied_modifiers, [HOT]);
    assert.deepEqual(keysOf(r.json), ['fragrance.freshness_preference']);
    assert.equal(claimValue(r.json, 'fragrance.freshness_preference'), 0.7215);
  });

  it('query also resolves under its context', async () => {
    const r = await api(p.url, '/v1/profile/query', { token, body: { context: { climate: 'hot_humid' } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.applied_modifiers, [HOT]);
    assert.equal(claimValue(r.json, 'fragrance.freshness_preference'), 0.7215);
  });

  it('query filters by provenance and min_confidence', async () => {
    const r = await api(p.url, '/v1/profile/query', { token, body: { provenance: ['inferred'] } });
    assert.deepEqual(keysOf(r.json), ['fragrance.projection_tolerance', 'novelty_tolerance']);
    const hi = await api(p.url, '/v1/profile/query', { token, body: { min_confidence: 0.85 } });
    assert.deepEqual(keysOf(hi.json), [
      'budget_sensitivity',
      'fragrance.note_aversions',
      'social_energy_preference',
    ]);
  });

  it('is deterministic: the same request twice gives the same claims and modifiers', async () => {
    for (const context of [{}, { climate: 'hot_humid' }, { climate: 'hot_humid', occasion: 'date_night' }]) {
      const a = await effective(context);
      const b = await effective(context);
      assert.deepEqual(a.json.claims, b.json.claims);
      assert.deepEqual(a.json.applied_modifiers, b.json.applied_modifiers);
      assert.equal(a.json.subject_id, b.json.subject_id);
    }
  });

  it('resolution never changes the stored profile', async () => {
    await effective({ climate: 'hot_humid' });
    const r = await api(p.url, '/v1/export', { token: p.subjectToken, body: {} });
    assert.equal(claimValue(r.json, 'fragrance.freshness_preference'), 0.6);
    assert.equal(claimValue(r.json, 'fragrance.projection_tolerance'), 0.5);
  });
});
