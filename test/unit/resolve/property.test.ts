import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import type { ContextModifier, ResolutionContext } from '../../../src/model/context-modifier.ts';
import { CONTEXT_DIMENSIONS } from '../../../src/model/vocabulary.ts';
import { resolveEffectiveProfile } from '../../../src/resolve/effective.ts';
import { conditionMatches } from '../../../src/resolve/modifiers.ts';
import { claim, deepFreeze, modifier, pick, prng, shuffle } from './helpers.ts';

// Property-style: random small profiles and contexts, fixed seed so failures reproduce.

const NAMESPACES = ['core', 'fragrance', 'travel'];
const KEYS = ['a', 'b', 'c'];
const VALUES = ['v1', 'v2', 'v3'];
const DIMENSIONS = [...CONTEXT_DIMENSIONS, 'custom_dim'];
const EFFECTS = ['weight_adjustment', 'override', 'veto', 'suggest'] as const;
const POLICIES = [undefined, 'none', 'linear', 'exponential'] as const;
const NOW = Date.parse('2026-06-01T00:00:00Z');
const DAY = 86_400_000;

function randomClaim(rand: () => number, i: number): Claim {
  const when = (d: number) => new Date(NOW + Math.round((rand() - 0.5) * d) * DAY).toISOString();
  const policy = pick(rand, POLICIES);
  return claim({
    claim_id: `ppx:claim:p${i}`,
    namespace: pick(rand, NAMESPACES),
    key: pick(rand, KEYS),
    value: rand() < 0.8 ? Math.round(rand() * 100) / 100 : { x: 0.5 },
    confidence: Math.round(rand() * 100) / 100,
    ...(rand() < 0.6 && {
      lifecycle: {
        ...(rand() < 0.7 && { last_confirmed_at: when(400) }),
        ...(rand() < 0.5 && { expires_at: when(200) }),
        ...(policy && { decay_policy: policy }),
      },
    }),
  });
}

function randomName(rand: () => number): string {
  const key = pick(rand, KEYS);
  return rand() < 0.5 ? key : `${pick(rand, NAMESPACES)}.${key}`;
}

function randomModifier(rand: () => number, i: number): ContextModifier {
  const condition: Record<string, unknown> = {};
  for (let n = Math.floor(rand() * 3); n > 0; n--) {
    condition[pick(rand, DIMENSIONS)] =
      rand() < 0.3 ? [pick(rand, VALUES), pick(rand, VALUES)] : pick(rand, VALUES);
  }
  const names = () => Array.from({ length: Math.floor(rand() * 3) }, () => randomName(rand));
  return modifier({
    modifier_id: `ppx:modifier:p${i}`,
    namespace: pick(rand, NAMESPACES),
    effect_type: pick(rand, EFFECTS),
    ...(rand() < 0.7 && { targets: names().map((n) => (n.includes('.') ? n : `core.${n}`)) }),
    condition,
    effect: {
      increase: names(),
      decrease: names(),
      override: Object.fromEntries(names().map((n) => [n, rand()])),
    },
    confidence: Math.round(rand() * 100) / 100,
  });
}

function randomContext(rand: () => number): ResolutionContext {
  const context: ResolutionContext = {};
  for (const d of DIMENSIONS) if (rand() < 0.5) context[d] = pick(rand, VALUES);
  return context;
}

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
