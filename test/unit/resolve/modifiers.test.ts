import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import type { ContextModifier, ResolutionContext } from '../../../src/model/context-modifier.ts';
import { resolveEffectiveProfile } from '../../../src/resolve/effective.ts';
import { WEIGHT_STEP } from '../../../src/resolve/modifiers.ts';
import { claim, modifier } from './helpers.ts';

const NOW = new Date('2026-05-01T00:00:00Z');
const resolve = (claims: Claim[], modifiers: ContextModifier[], context: ResolutionContext = {}) =>
  resolveEffectiveProfile({ claims, modifiers, context, now: NOW });
const valueIn = (r: { claims: Claim[] }, id: string) => r.claims.find((c) => c.claim_id === id)?.value;

const fresh = claim({ claim_id: 'ppx:claim:f', namespace: 'fragrance', key: 'freshness', value: 0.5 });
const heavy = claim({ claim_id: 'ppx:claim:h', namespace: 'fragrance', key: 'heavy', value: 0.5 });
const weight = (overrides: Partial<ContextModifier> = {}) =>
  modifier({
    modifier_id: 'ppx:modifier:w',
    targets: ['fragrance.freshness', 'fragrance.heavy'],
    effect: { increase: ['freshness'], decrease: ['heavy'] },
    confidence: 0.8,
    ...overrides,
  });

describe('weight_adjustment (SPEC §5.3)', () => {
  it('steps by 0.15 × modifier confidence', () => {
    assert.equal(WEIGHT_STEP, 0.15);
    const r = resolve([fresh, heavy], [weight()]);
    assert.equal(valueIn(r, 'ppx:claim:f'), 0.62);
    assert.equal(valueIn(r, 'ppx:claim:h'), 0.38);
    assert.deepEqual(r.applied_modifiers, ['ppx:modifier:w']);
  });

  it('clamps to [0, 1]', () => {
    const r = resolve(
      [
        { ...fresh, value: 0.95 },
        { ...heavy, value: 0.05 },
      ],
      [weight()],
    );
    assert.equal(valueIn(r, 'ppx:claim:f'), 1);
    assert.equal(valueIn(r, 'ppx:claim:h'), 0);
  });

  it('rounds to 4 decimals (0.18 − 0.15 × 0.81 = 0.0585)', () => {
    const r = resolve([{ ...heavy, value: 0.18 }], [weight({ confidence: 0.81 })]);
    assert.equal(valueIn(r, 'ppx:claim:h'), 0.0585);
  });

  it('leaves map<string,float>, string, int and out-of-range values alone but still reports', () => {
    const map = { ...fresh, value: { citrus: 0.5 }, value_type: 'map<string,float>' as const };
    const r1 = resolve([map], [weight()]);
    assert.deepEqual(valueIn(r1, 'ppx:claim:f'), { citrus: 0.5 });
    assert.deepEqual(r1.applied_modifiers, ['ppx:modifier:w']);
    assert.equal(
      valueIn(resolve([{ ...fresh, value: 'x', value_type: 'string' }], [weight()]), 'ppx:claim:f'),
      'x',
    );
    assert.equal(valueIn(resolve([{ ...fresh, value: 1, value_type: 'int' }], [weight()]), 'ppx:claim:f'), 1);
    assert.equal(valueIn(resolve([{ ...fresh, value: 3 }], [weight()]), 'ppx:claim:f'), 3);
  });

  it('a name in both increase and decrease nets out', () => {
    const m = weight({ effect: { increase: ['freshness'], decrease: ['freshness'] } });
    assert.equal(valueIn(resolve([fresh], [m]), 'ppx:claim:f'), 0.5);
  });

  it('does nothing when the condition does not match', () => {
    const r = resolve([fresh], [weight({ condition: { climate: 'cold' } })], { climate: 'hot_humid' });
    assert.equal(valueIn(r, 'ppx:claim:f'), 0.5);
    assert.deepEqual(r.applied_modifiers, []);
  });
});

describe('naming claims (SPEC §5.3 targets / effect names)', () => {
  const travelFresh = claim({ claim_id: 'ppx:claim:t', namespace: 'travel', key: 'freshness', value: 0.5 });

  it('resolves a bare name only within the namespaces of the targets', () => {
    const r = resolve([fresh, travelFresh], [weight({ targets: ['fragrance.other'] })]);
    assert.equal(valueIn(r, 'ppx:claim:f'), 0.62);
    assert.equal(valueIn(r, 'ppx:claim:t'), 0.5);
  });

  it('resolves a bare name in the modifier namespace when there are no targets', () => {
    const m = weight({ namespace: 'travel', targets: undefined, effect: { increase: ['freshness'] } });
    const r = resolve([fresh, travelFresh], [m]);
    assert.equal(valueIn(r, 'ppx:claim:f'), 0.5);
    assert.equal(valueIn(r, 'ppx:claim:t'), 0.62);
  });

  it('accepts qualified effect names regardless of targets', () => {
    const m = weight({ targets: ['fragrance.freshness'], effect: { increase: ['travel.freshness'] } });
    const r = resolve([fresh, travelFresh], [m]);
    assert.equal(valueIn(r, 'ppx:claim:t'), 0.62);
    assert.equal(valueIn(r, 'ppx:claim:f'), 0.5);
  });

  it('names core keys bare or as core.<key>', () => {
    const novelty = claim({ claim_id: 'ppx:claim:n', key: 'novelty_tolerance', value: 0.5 });
    for (const target of ['novelty_tolerance', 'core.novelty_tolerance']) {
      for (const name of ['novelty_tolerance', 'core.novelty_tolerance']) {
        const m = weight({ targets: [target], effect: { increase: [name] } });
        assert.equal(valueIn(resolve([novelty], [m]), 'ppx:claim:n'), 0.62, `${target} / ${name}`);
      }
    }
  });

  it('a target alone is enough to report the modifier, without changing values', () => {
    const m = weight({ targets: ['fragrance.freshness'], effect: {} });
    const r = resolve([fresh], [m]);
    assert.deepEqual(r.applied_modifiers, ['ppx:modifier:w']);
    assert.equal(valueIn(r, 'ppx:claim:f'), 0.5);
  });
});

describe('override / veto / suggest (SPEC §5.3 effect_type)', () => {
  it('override replaces the value of each named claim', () => {
    const m = weight({
      effect_type: 'override',
      effect: { override: { freshness: 0.9, 'fragrance.heavy': 'off' } },
    });
    const r = resolve([fresh, heavy], [m]);
    assert.equal(valueIn(r, 'ppx:claim:f'), 0.9);
    assert.equal(valueIn(r, 'ppx:claim:h'), 'off');
  });

  it('override prefers a qualified name over a bare one and copies the value', () => {
    const list = ['a', 'b'];
    const m = weight({
      effect_type: 'override',
      effect: { override: { freshness: 0.1, 'fragrance.freshness': list } },
    });
    const out = valueIn(resolve([fresh], [m]), 'ppx:claim:f');
    assert.deepEqual(out, list);
    assert.notEqual(out, list);
  });

  it('veto removes claims named by targets, increase and decrease', () => {
    const other = claim({ claim_id: 'ppx:claim:o', namespace: 'fragrance', key: 'other' });
    const kept = claim({ claim_id: 'ppx:claim:k', namespace: 'fragrance', key: 'kept' });
    const m = weight({ effect_type: 'veto', targets: ['fragrance.other'] });
    const r = resolve([fresh, heavy, other, kept], [m]);
    assert.deepEqual(
      r.claims.map((c) => c.claim_id),
      ['ppx:claim:k'],
    );
    assert.deepEqual(r.applied_modifiers, ['ppx:modifier:w']);
  });

  it('suggest leaves values alone but is reported', () => {
    const r = resolve([fresh, heavy], [weight({ effect_type: 'suggest' })]);
    assert.deepEqual(r.claims, [fresh, heavy]);
    assert.deepEqual(r.applied_modifiers, ['ppx:modifier:w']);
  });

  it('suggest naming nothing present is not reported', () => {
    const r = resolve([claim({ claim_id: 'ppx:claim:x' })], [weight({ effect_type: 'suggest' })]);
    assert.deepEqual(r.applied_modifiers, []);
  });
});
