import type { Claim } from '../../../src/model/claim.ts';
import type { ContextModifier } from '../../../src/model/context-modifier.ts';

// Shared builders for the resolve tests. Not a *.test.ts file, so the runner does not pick it up.

export function claim(overrides: Partial<Claim> & Pick<Claim, 'claim_id'>): Claim {
  return {
    type: 'preference',
    namespace: 'core',
    key: 'k',
    value: 0.5,
    value_type: 'float',
    confidence: 0.8,
    source: { kind: 'user_stated' },
    ...overrides,
  };
}

export function modifier(
  overrides: Partial<ContextModifier> & Pick<ContextModifier, 'modifier_id'>,
): ContextModifier {
  return {
    namespace: 'core',
    key: 'm',
    effect_type: 'weight_adjustment',
    condition: {},
    effect: {},
    confidence: 1,
    source: { kind: 'observed' },
    ...overrides,
  };
}

/** Freezes recursively so any mutation of test inputs throws (strict-mode ESM). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export { pick, prng } from '../../support/random.ts';

/** Fisher–Yates shuffle into a new array. */
export function shuffle<T>(rand: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
