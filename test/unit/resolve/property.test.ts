import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import { resolveEffectiveProfile } from '../../../src/resolve/effective.ts';
import { conditionMatches } from '../../../src/resolve/modifiers.ts';
import { deepFreeze, prng, shuffle } from './helpers.ts';
import { NOW, randomClaim, randomContext, randomModifier } from './random-profiles.ts';

// Property-style: random small profiles and contexts, fixed seed so failures reproduce.

describe('resolveEffectiveProfile properties', () => {
  it('holds invariants for 200 random profiles', () => {
    const rand = prng(20260601);
    let applied = 0;
    for (let run = 0; run < 200; run++) {
      const claims = deepFreeze(
        Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, i) => randomClaim(rand, i)),
      );
      const modifiers = deepFreeze(
        Array.from({ length: Math.floor(rand() * 5) }, (_, i) => randomModifier(rand, i)),
      );
      const context = deepFreeze(randomContext(rand));
      const now = new Date(NOW);
      const r = resolveEffectiveProfile({ claims, modifiers, context, now });
      const label = `run ${run}`;
      const inputIds = new Set(claims.map((c) => c.claim_id));
      for (const c of r.claims) {
        assert.ok(inputIds.has(c.claim_id), `${label}: unknown claim ${c.claim_id}`);
        assert.ok(c.confidence >= 0 && c.confidence <= 1, `${label}: confidence ${c.confidence}`);
      }
      const byId = new Map(modifiers.map((m) => [m.modifier_id, m]));
      for (const id of r.applied_modifiers) {
        const m = byId.get(id);
        assert.ok(m && conditionMatches(m.condition, context), `${label}: ${id} reported but did not match`);
      }
      // Applied modifiers come out in application (modifier_id) order.
      assert.deepEqual(r.applied_modifiers, [...r.applied_modifiers].sort(), label);
      const sortKey = (c: Claim) => `${c.namespace}\u0000${c.key}\u0000${c.claim_id}`;
      assert.deepEqual(r.claims.map(sortKey), r.claims.map(sortKey).sort(), label);
      // Order independence.
      const again = resolveEffectiveProfile({
        claims: shuffle(rand, claims),
        modifiers: shuffle(rand, modifiers),
        context,
        now,
      });
      assert.deepEqual(again, r, `${label}: order-dependent`);
      applied += r.applied_modifiers.length;
    }
    // Guard against a generator that never exercises modifiers.
    assert.ok(applied > 20, `only ${applied} modifiers applied across all runs`);
  });
});
