import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Claim } from '../../../src/model/claim.ts';
import type { ContextModifier } from '../../../src/model/context-modifier.ts';
import { resolveEffectiveProfile } from '../../../src/resolve/effective.ts';
import { skipWhen } from '../../support/skip.ts';
import { claim, deepFreeze, modifier, prng, shuffle } from './helpers.ts';

const NOW = new Date('2026-06-20T15:00:00Z');

const claims: Claim[] = [
  claim({ claim_id: 'ppx:claim:3', namespace: 'travel', key: 'pace', value: 0.4 }),
  claim({ claim_id: 'ppx:claim:2', namespace: 'fragrance', key: 'fresh', value: 0.5 }),
  claim({ claim_id: 'ppx:claim:1', namespace: 'fragrance', key: 'fresh', value: 0.3 }),
  claim({ claim_id: 'ppx:claim:0', key: 'novelty_tolerance', value: 0.6 }),
  claim({
    claim_id: 'ppx:claim:9',
    namespace: 'fragrance',
    key: 'old',
    lifecycle: { expires_at: '2026-06-20T15:00:00Z' },
  }),
];
const modifiers: ContextModifier[] = [
  modifier({
    modifier_id: 'ppx:modifier:b',
    effect_type: 'override',
    targets: ['fragrance.fresh'],
    effect: { override: { fresh: 0.9 } },
    condition: { climate: 'hot_humid' },
  }),
  modifier({
    modifier_id: 'ppx:modifier:a',
    targets: ['fragrance.fresh', 'travel.pace'],
    effect: { increase: ['fresh'], decrease: ['pace'] },
    condition: { climate: ['hot_humid', 'hot_dry'] },
  }),
  modifier({
    modifier_id: 'ppx:modifier:c',
    effect_type: 'veto',
    targets: ['novelty_tolerance'],
    condition: { occasion: 'work' },
  }),
];
const context = { climate: 'hot_humid', occasion: 'work' };

describe('resolveEffectiveProfile (SPEC §9 get_effective_profile)', () => {
  it('applies lifecycle, then modifiers in modifier_id order, and sorts the output', () => {
    const r = resolveEffectiveProfile({ claims, modifiers, context, now: NOW });
    // a (+0.15) runs before b (override), so b wins on fragrance.fresh.
    assert.deepEqual(
      r.claims.map((c) => [c.claim_id, c.value]),
      [
        ['ppx:claim:1', 0.9],
        ['ppx:claim:2', 0.9],
        ['ppx:claim:3', 0.25],
      ],
    );
    assert.deepEqual(r.applied_modifiers, ['ppx:modifier:a', 'ppx:modifier:b', 'ppx:modifier:c']);
  });

  it('returns an empty applied_modifiers array when nothing applies', () => {
    const r = resolveEffectiveProfile({ claims, modifiers: [], context: {}, now: NOW });
    assert.deepEqual(r.applied_modifiers, []);
    assert.equal(r.claims.length, 4);
  });

  it('does not report a matching modifier whose named claims are all absent (privacy)', () => {
    const visible = claims.filter((c) => c.namespace === 'travel');
    const r = resolveEffectiveProfile({ claims: visible, modifiers, context, now: NOW });
    // b and c name only fragrance/core claims the caller did not pass; a names travel.pace.
    assert.deepEqual(r.applied_modifiers, ['ppx:modifier:a']);
    const none = resolveEffectiveProfile({ claims: [], modifiers, context, now: NOW });
    assert.deepEqual(none, { claims: [], applied_modifiers: [] });
  });

  it('does not report a modifier that names only an expired claim', () => {
    const m = modifier({ modifier_id: 'ppx:modifier:x', targets: ['fragrance.old'] });
    const r = resolveEffectiveProfile({ claims, modifiers: [m], context, now: NOW });
    assert.deepEqual(r.applied_modifiers, []);
  });

  it('is deterministic under any input order', () => {
    const expected = resolveEffectiveProfile({ claims, modifiers, context, now: NOW });
    const rand = prng(42);
    for (let i = 0; i < 25; i++) {
      const r = resolveEffectiveProfile({
        claims: shuffle(rand, claims),
        modifiers: shuffle(rand, modifiers),
        context,
        now: NOW,
      });
      assert.deepEqual(r, expected);
      assert.equal(JSON.stringify(r), JSON.stringify(expected));
    }
  });

  it('never mutates its inputs', () => {
    const input = deepFreeze({
      claims: structuredClone(claims),
      modifiers: structuredClone(modifiers),
      context,
    });
    const before = structuredClone(input);
    resolveEffectiveProfile({ ...input, now: NOW });
    assert.deepEqual(input, before);
  });
});

const examples = new URL('../../../../shared/spec/ppx/examples/', import.meta.url);
const profilePath = fileURLToPath(new URL('profile-basic.json', examples));
const modifierPath = fileURLToPath(new URL('context-modifier-climate.json', examples));
const missing = !existsSync(profilePath) && 'needs ../shared (spec examples)';

describe('official example profile-basic.json', skipWhen(missing), () => {
  const load = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

  it('resolves under {climate: hot_humid}', () => {
    const profile = load(profilePath);
    const r = resolveEffectiveProfile({
      claims: profile.claims,
      modifiers: profile.context_modifiers,
      context: { climate: 'hot_humid' },
      now: NOW,
    });
    // The example modifier names fragrance.projection_tolerance / freshness_preference, which the
    // example profile does not contain, so it is not reported (privacy rule) and changes nothing.
    assert.deepEqual(r.applied_modifiers, []);
    // c-001 decays linearly: 92 of 184 days between confirmation and expiry → 0.78 × 0.5.
    const expected = structuredClone(profile.claims);
    expected[0].confidence = 0.39;
    assert.deepEqual(r.claims, expected);
  });

  it('applies context-modifier-climate.json to sweetness_preference', {
    skip: !existsSync(modifierPath),
  }, () => {
    const profile = load(profilePath);
    const r = resolveEffectiveProfile({
      claims: profile.claims,
      modifiers: [load(modifierPath)],
      context: { climate: 'hot_humid' },
      now: NOW,
    });
    assert.deepEqual(r.applied_modifiers, ['ppx:modifier:014']);
    // 0.18 − 0.15 × 0.81
    assert.equal(r.claims.find((c) => c.key === 'sweetness_preference')?.value, 0.0585);
  });

  it('drops everything time-bound after the example claim expires', () => {
    const profile = load(profilePath);
    const r = resolveEffectiveProfile({
      claims: profile.claims,
      modifiers: [],
      context: {},
      now: new Date('2026-09-20T15:00:00Z'),
    });
    assert.deepEqual(
      r.claims.map((c) => c.claim_id),
      ['ppx:claim:c-002', 'ppx:claim:c-003', 'ppx:claim:c-004'],
    );
  });
});
