import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import {
  mapClaim,
  mappedValue,
  mapToCoreTraits,
  signalOf,
  TRAIT_MAPPINGS,
} from '../../../src/policy/trait-mapping.ts';
import { claim, NOW } from '../../support/policy-fixtures.ts';

// The trait mapping table and mapToCoreTraits (docs/cross-domain.md): exact numbers, and never a
// raw domain value in what comes out.

const FAMILIES = { woody: 0.82, citrus: 0.64, aquatic: 0.55, gourmand: 0.18 };

function domainClaim(id: string, namespace: string, key: string, value: unknown, confidence: number): Claim {
  return claim({
    claim_id: `ppx:claim:${id}`,
    namespace,
    key,
    value,
    confidence,
    source: { kind: 'observed' },
  });
}

const SOURCES: Claim[] = [
  domainClaim('f-int', 'fragrance', 'intensity_preference', 0.45, 0.8),
  domainClaim('f-proj', 'fragrance', 'projection_tolerance', 0.5, 0.62),
  {
    ...domainClaim('f-fam', 'fragrance', 'family_preference', FAMILIES, 0.71),
    value_type: 'map<string,float>',
  },
  { ...domainClaim('f-avers', 'fragrance', 'note_aversions', ['oud'], 0.95), value_type: 'string_list' },
  domainClaim('t-cuisine', 'travel', 'cuisine_openness', 0.85, 0.41),
  domainClaim('t-pace', 'travel', 'pace_preference', 0.4, 0.52),
  domainClaim('t-urban', 'travel', 'urbanism_preference', 0.72, 0.88),
  domainClaim('t-climate', 'travel', 'climate_heat_humidity_bias', 0.3, 0.69),
];

describe('trait mapping table', () => {
  it('maps only domain keys to core keys, one entry per (source domain, target)', () => {
    const seen = new Set<string>();
    for (const m of TRAIT_MAPPINGS) {
      assert.match(m.source, /^(fragrance|travel)\.[a-z_]+$/);
      assert.doesNotMatch(m.target, /\./);
      const pair = `${m.source.split('.')[0]}->${m.target}`;
      assert.equal(seen.has(pair), false, pair);
      seen.add(pair);
      assert.ok(m.why.length > 20);
      assert.equal(m.id, `ppx-trait-map/v1/${m.source}->${m.target}`);
    }
  });
});

describe('mapToCoreTraits', () => {
  const mapped = mapToCoreTraits(SOURCES, NOW);
  const byOrigin = new Map(mapped.map((c) => [c.source.origin, c]));
  const get = (source: string, target: string) => {
    const c = byOrigin.get(`ppx-trait-map/v1/${source}->${target}`);
    assert.ok(c, `no mapped claim for ${source}`);
    return c;
  };

  it('maps exactly the six mapped keys, with exact values and confidences', () => {
    assert.equal(mapped.length, 6);
    const expect: [string, string, number, number][] = [
      ['fragrance.intensity_preference', 'sensory_intensity_preference', 0.5, 0.64],
      ['fragrance.projection_tolerance', 'social_energy_preference', 0.5, 0.496],
      ['fragrance.family_preference', 'novelty_tolerance', 0.7, 0.568],
      ['travel.cuisine_openness', 'novelty_tolerance', 0.8, 0.328],
      ['travel.pace_preference', 'decision_speed_preference', 0.4, 0.416],
      ['travel.urbanism_preference', 'social_energy_preference', 0.7, 0.704],
    ];
    for (const [source, target, value, confidence] of expect) {
      const c = get(source, target);
      assert.equal(c.namespace, 'core');
      assert.equal(c.key, target);
      assert.equal(c.value, value, source);
      assert.equal(c.confidence, confidence, source);
    }
  });

  it('shapes every mapped claim as a derived core float with a deterministic id', () => {
    for (const c of mapped) {
      assert.match(c.claim_id, /^ppx:claim:mapped-[0-9a-f]{24}$/);
      assert.equal(c.type, 'derived_signal');
      assert.equal(c.source.kind, 'derived_aggregate');
      assert.equal(c.value_type, 'float');
      assert.equal(c.units, 'normalized_0_1');
      assert.match(c.explanation?.summary ?? '', /^Mapped from the subject's (fragrance|travel) preferences/);
      assert.equal(c.applicability, undefined);
    }
    assert.deepEqual(mapToCoreTraits(SOURCES, NOW), mapped, 'same input, same output');
    const again = mapClaim({ ...SOURCES[0]!, claim_id: 'ppx:claim:other' }, NOW);
    assert.notEqual(
      again?.claim_id,
      get('fragrance.intensity_preference', 'sensory_intensity_preference').claim_id,
    );
  });

  it('never carries a raw domain value, key or claim id', () => {
    const text = JSON.stringify(mapped);
    for (const raw of [
      'woody',
      'citrus',
      'gourmand',
      'oud',
      '0.82',
      '0.45',
      '0.85',
      '0.72',
      'f-int',
      't-pace',
    ]) {
      assert.ok(!text.includes(raw), `raw ${raw} in ${text}`);
    }
    for (const c of mapped) assert.equal(typeof c.value, 'number');
  });

  it('pulls toward 0.5 and rounds to one decimal', () => {
    assert.equal(mappedValue(1), 0.9);
    assert.equal(mappedValue(0), 0.1);
    assert.equal(mappedValue(0.5), 0.5);
    assert.equal(mappedValue(0.25), 0.3);
  });

  it('skips values that do not fit: out of range, wrong type, too few families', () => {
    assert.equal(signalOf('scale', 1.2), undefined);
    assert.equal(signalOf('scale', '0.4'), undefined);
    assert.equal(signalOf('scale', Number.NaN), undefined);
    assert.equal(signalOf('breadth', { woody: 0.9, citrus: 0.1 }), undefined);
    assert.equal(signalOf('breadth', { a: 0.9, b: 0.1, c: 1.5 }), undefined);
    assert.equal(signalOf('breadth', [0.9, 0.8, 0.7]), undefined);
    assert.equal(signalOf('breadth', { a: 0.5, b: 0.49, c: 0.2 }), 1 / 3);
  });

  it('maps nothing from an unmapped key, a core claim or an expired source; decay lowers confidence', () => {
    assert.equal(mapClaim(SOURCES[3]!, NOW), undefined);
    assert.equal(mapClaim(SOURCES[7]!, NOW), undefined);
    assert.equal(mapClaim(claim({ claim_id: 'ppx:claim:core' }), NOW), undefined);
    const expired = { ...SOURCES[0]!, lifecycle: { expires_at: '2026-05-01T00:00:00.000Z' } };
    assert.equal(mapClaim(expired, NOW), undefined);
    const half: Claim = {
      ...SOURCES[0]!,
      lifecycle: {
        last_confirmed_at: '2026-05-01T12:00:00.000Z',
        expires_at: '2026-07-01T12:00:00.000Z',
        decay_policy: 'linear',
      },
    };
    const decayed = mapClaim(half, NOW);
    // 31 of 61 days elapsed: 0.8 × (1 − 31/61) = 0.3934 after decay (4 decimals), then × 0.8
    assert.equal(decayed?.confidence, 0.3147);
    assert.deepEqual(decayed?.lifecycle, { expires_at: '2026-07-01T12:00:00.000Z' });
  });
});
