import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyLifecycle,
  DEFAULT_EXPONENTIAL_HALF_LIFE_DAYS,
  DEFAULT_LINEAR_HORIZON_DAYS,
  MS_PER_DAY,
} from '../../../src/resolve/lifecycle.ts';
import { claim, deepFreeze } from './helpers.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (days: number) => new Date(T0 + days * MS_PER_DAY).toISOString();
const at = (days: number) => new Date(T0 + days * MS_PER_DAY);

type Lifecycle = NonNullable<Parameters<typeof applyLifecycle>[0]['lifecycle']>;
const withLifecycle = (lifecycle: Lifecycle, confidence = 0.8) =>
  deepFreeze(claim({ claim_id: 'ppx:claim:l1', confidence, lifecycle }));

describe('applyLifecycle — expiry (SPEC §5.2)', () => {
  it('keeps a claim without lifecycle as the same object', () => {
    const c = deepFreeze(claim({ claim_id: 'ppx:claim:a' }));
    assert.equal(applyLifecycle(c, at(0)), c);
  });

  it('drops a claim whose expires_at equals now (boundary is inclusive)', () => {
    assert.equal(applyLifecycle(withLifecycle({ expires_at: iso(5) }), at(5)), undefined);
  });

  it('drops a claim whose expires_at is in the past', () => {
    assert.equal(applyLifecycle(withLifecycle({ expires_at: iso(5) }), at(6)), undefined);
  });

  it('keeps a claim 1 ms before expiry', () => {
    const c = withLifecycle({ expires_at: iso(5) });
    assert.equal(applyLifecycle(c, new Date(T0 + 5 * MS_PER_DAY - 1)), c);
  });
});

describe('applyLifecycle — decay (SPEC §5.2)', () => {
  it('exports the default horizons', () => {
    assert.equal(DEFAULT_LINEAR_HORIZON_DAYS, 365);
    assert.equal(DEFAULT_EXPONENTIAL_HALF_LIFE_DAYS, 180);
    assert.equal(MS_PER_DAY, 86_400_000);
  });

  it('leaves confidence unchanged for decay_policy none and for an absent policy', () => {
    const none = withLifecycle({ last_confirmed_at: iso(0), decay_policy: 'none' });
    const absent = withLifecycle({ last_confirmed_at: iso(0) });
    assert.equal(applyLifecycle(none, at(100)), none);
    assert.equal(applyLifecycle(absent, at(100)), absent);
  });

  it('does not decay without last_confirmed_at', () => {
    const c = withLifecycle({ expires_at: iso(10), decay_policy: 'linear' });
    assert.equal(applyLifecycle(c, at(5)), c);
  });

  it('does not decay when elapsed <= 0', () => {
    const same = withLifecycle({ last_confirmed_at: iso(3), decay_policy: 'exponential' });
    assert.equal(applyLifecycle(same, at(3)), same);
    assert.equal(applyLifecycle(same, at(1)), same);
  });

  it('linear with expires_at: 3 of 10 days elapsed → × 0.7', () => {
    const c = withLifecycle({ last_confirmed_at: iso(0), expires_at: iso(10), decay_policy: 'linear' });
    assert.equal(applyLifecycle(c, at(3))?.confidence, 0.56);
  });

  it('linear without expires_at uses the 365-day horizon: 73 days → × 0.8', () => {
    const c = withLifecycle({ last_confirmed_at: iso(0), decay_policy: 'linear' }, 0.5);
    assert.equal(applyLifecycle(c, at(73))?.confidence, 0.4);
  });

  it('linear without expires_at bottoms out at 0 past the horizon', () => {
    const c = withLifecycle({ last_confirmed_at: iso(0), decay_policy: 'linear' });
    assert.equal(applyLifecycle(c, at(400))?.confidence, 0);
  });

  it('linear rounds to 4 decimals: 0.7 × 2/3 → 0.4667', () => {
    const c = withLifecycle({ last_confirmed_at: iso(0), expires_at: iso(3), decay_policy: 'linear' }, 0.7);
    assert.equal(applyLifecycle(c, at(1))?.confidence, 0.4667);
  });

  it('exponential with expires_at: half-life is half the window (10 of 20 days → × 0.5)', () => {
    const c = withLifecycle(
      { last_confirmed_at: iso(0), expires_at: iso(20), decay_policy: 'exponential' },
      0.9,
    );
    assert.equal(applyLifecycle(c, at(10))?.confidence, 0.45);
  });

  it('exponential without expires_at uses the 180-day half-life', () => {
    const c = withLifecycle({ last_confirmed_at: iso(0), decay_policy: 'exponential' });
    assert.equal(applyLifecycle(c, at(180))?.confidence, 0.4);
    assert.equal(applyLifecycle(c, at(360))?.confidence, 0.2);
    // 0.8 × 0.5^0.5 = 0.56568…
    assert.equal(applyLifecycle(c, at(90))?.confidence, 0.5657);
  });

  it('returns a new object and never mutates the (frozen) input', () => {
    const c = withLifecycle({ last_confirmed_at: iso(0), expires_at: iso(10), decay_policy: 'linear' });
    const before = structuredClone(c);
    const out = applyLifecycle(c, at(5));
    assert.notEqual(out, c);
    assert.deepEqual(c, before);
    assert.deepEqual(out, { ...before, confidence: 0.4 });
  });

  it('returns the same object when decay rounds away to nothing', () => {
    const c = withLifecycle({ last_confirmed_at: iso(0), decay_policy: 'linear' });
    assert.equal(applyLifecycle(c, new Date(T0 + 1000)), c);
  });
});
