import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdentityMemo, isShared, SecondMemo, share } from '../../../src/cache/identity-memo.ts';
import type { Claim } from '../../../src/model/claim.ts';
import { resolveEffectiveProfile } from '../../../src/resolve/effective.ts';
import { applyLifecycle, EXPIRED, lifecycleConfidence, MS_PER_DAY } from '../../../src/resolve/lifecycle.ts';
import { resolveShared } from '../../../src/resolve/shared-resolution.ts';
import { claim, deepFreeze, modifier, prng } from './helpers.ts';
import { DAY, NOW, randomClaim, randomContext, randomModifier } from './random-profiles.ts';

// resolveShared must be resolveEffectiveProfile exactly, only cheaper: these tests compare the
// two across time, inputs and contexts, with the same input objects reused as the store does.

describe('resolveShared', () => {
  it('equals resolveEffectiveProfile at every later time, for random profiles (reused inputs)', () => {
    const rand = prng(20261129);
    let reused = 0;
    let recomputed = 0;
    for (let run = 0; run < 150; run++) {
      const claims = deepFreeze(
        Array.from({ length: 1 + Math.floor(rand() * 8) }, (_, i) => randomClaim(rand, i)),
      );
      const modifiers = deepFreeze(
        Array.from({ length: Math.floor(rand() * 5) }, (_, i) => randomModifier(rand, i)),
      );
      const context = deepFreeze(randomContext(rand));
      let t = NOW - 300 * DAY;
      let previous = resolveShared({ claims, modifiers, context, now: new Date(t) });
      for (let step = 0; step < 12; step++) {
        // Steps from a millisecond to months, so some stay within a rounding step and some cross
        // an expiry or a decay step.
        t += Math.floor(10 ** (rand() * 10.5));
        const now = new Date(t);
        const got = resolveShared({ claims, modifiers, context, now });
        assert.deepEqual(
          got,
          resolveEffectiveProfile({ claims, modifiers, context, now }),
          `run ${run} step ${step}`,
        );
        if (got === previous) reused++;
        else recomputed++;
        previous = got;
      }
    }
    // The test must exercise both branches.
    assert.ok(reused > 100 && recomputed > 100, `reused ${reused}, recomputed ${recomputed}`);
  });

  it('reuses the result for the same inputs and context, and shares it', () => {
    const claims = deepFreeze([claim({ claim_id: 'ppx:claim:a' })]);
    const modifiers = deepFreeze([]);
    const now = new Date(NOW);
    const first = resolveShared({ claims, modifiers, context: { climate: 'hot' }, now });
    assert.equal(resolveShared({ claims, modifiers, context: { climate: 'hot' }, now }), first);
    assert.ok(isShared(first) && isShared(first.claims) && isShared(first.applied_modifiers));
    assert.notEqual(resolveShared({ claims, modifiers, context: { climate: 'cold' }, now }), first);
  });

  it('recomputes when the modifiers are other objects', () => {
    const claims = deepFreeze([claim({ claim_id: 'ppx:claim:a', key: 'k', value: 0.5 })]);
    const veto = (id: string) =>
      modifier({ modifier_id: id, key: 'k', effect_type: 'veto', targets: ['core.k'] });
    const now = new Date(NOW);
    const before = resolveShared({ claims, modifiers: [], context: {}, now });
    const after = resolveShared({ claims, modifiers: [veto('ppx:modifier:v')], context: {}, now });
    assert.notEqual(after, before);
    assert.deepEqual(
      after,
      resolveEffectiveProfile({ claims, modifiers: [veto('ppx:modifier:v')], context: {}, now }),
    );
  });

  it('drops a claim the moment it expires, even when the result was cached a millisecond before', () => {
    const expires = NOW + DAY;
    const claims = deepFreeze([
      claim({ claim_id: 'ppx:claim:e', lifecycle: { expires_at: new Date(expires).toISOString() } }),
    ]);
    const modifiers = deepFreeze([]);
    assert.equal(
      resolveShared({ claims, modifiers, context: {}, now: new Date(expires - 1) }).claims.length,
      1,
    );
    assert.equal(resolveShared({ claims, modifiers, context: {}, now: new Date(expires) }).claims.length, 0);
  });
});

describe('lifecycleConfidence', () => {
  it('is what applyLifecycle applies, for random claims and times', () => {
    const rand = prng(7);
    for (let i = 0; i < 2000; i++) {
      const c = randomClaim(rand, i);
      const now = NOW + Math.round((rand() - 0.5) * 800) * MS_PER_DAY + Math.floor(rand() * MS_PER_DAY);
      const applied = applyLifecycle(c, new Date(now));
      const confidence = lifecycleConfidence(c, now);
      if (applied === undefined) assert.equal(confidence, EXPIRED);
      else assert.equal(confidence, applied.confidence);
    }
  });
});

describe('share', () => {
  it('freezes objects but not arrays (V8 serializes frozen arrays on a slower path)', () => {
    const list = share([1, 2]);
    const object = share({ a: 1 });
    assert.ok(isShared(list) && isShared(object));
    assert.ok(Object.isFrozen(object));
    assert.ok(!Object.isFrozen(list));
    assert.ok(!isShared([1, 2]));
  });
});

describe('IdentityMemo', () => {
  it('keeps at most maxPerOwner keys per object, dropping the oldest', () => {
    const memo = new IdentityMemo<object, number>(2);
    const owner = {};
    memo.set(owner, 'a', 1);
    memo.set(owner, 'b', 2);
    memo.set(owner, 'c', 3);
    assert.equal(memo.get(owner, 'a'), undefined);
    assert.equal(memo.get(owner, 'b'), 2);
    assert.equal(memo.get(owner, 'c'), 3);
    assert.equal(memo.get({}, 'c'), undefined, 'keyed by identity, not by content');
  });

  it('SecondMemo forgets everything when the second changes', () => {
    const memo = new SecondMemo<Claim[], string>(4);
    const owner: Claim[] = [];
    memo.set(1000, owner, 'k', 'v');
    assert.equal(memo.get(1000, owner, 'k'), 'v');
    assert.equal(memo.get(2000, owner, 'k'), undefined);
    memo.set(2000, owner, 'other', 'w');
    assert.equal(memo.get(1000, owner, 'k'), undefined);
  });
});
