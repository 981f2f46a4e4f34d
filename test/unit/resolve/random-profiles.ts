import type { Claim } from '../../../src/model/claim.ts';
import type { ContextModifier, ResolutionContext } from '../../../src/model/context-modifier.ts';
import { CONTEXT_DIMENSIONS } from '../../../src/model/vocabulary.ts';
import { claim, modifier, pick } from './helpers.ts';

// Random small profiles, modifiers and contexts for the property tests (seeded by the caller).

const NAMESPACES = ['core', 'fragrance', 'travel'];
const KEYS = ['a', 'b', 'c'];
const VALUES = ['v1', 'v2', 'v3'];
const DIMENSIONS = [...CONTEXT_DIMENSIONS, 'custom_dim'];
const EFFECTS = ['weight_adjustment', 'override', 'veto', 'suggest'] as const;
const POLICIES = [undefined, 'none', 'linear', 'exponential'] as const;
export const NOW = Date.parse('2026-06-01T00:00:00Z');
export const DAY = 86_400_000;

export function randomClaim(rand: () => number, i: number): Claim {
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

export function randomModifier(rand: () => number, i: number): ContextModifier {
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

export function randomContext(rand: () => number): ResolutionContext {
  const context: ResolutionContext = {};
  for (const d of DIMENSIONS) if (rand() < 0.5) context[d] = pick(rand, VALUES);
  return context;
}
