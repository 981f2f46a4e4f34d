import type { Claim } from '../../../../src/model/claim.ts';

// Builders for the derived-view kind tests. Not a *.test.ts file, so the runner skips it.

export const NOW = new Date('2026-06-01T12:00:00.000Z');

let seq = 0;

/** A claim of `namespace.key` (core unprefixed accepted) with a value and a confidence. */
export function c(key: string, value: unknown, confidence: number, extra: Partial<Claim> = {}): Claim {
  const dot = key.indexOf('.');
  const namespace = dot < 0 ? 'core' : key.slice(0, dot);
  return {
    claim_id: `ppx:claim:t-${++seq}`,
    type: 'preference',
    namespace,
    key: dot < 0 ? key : key.slice(dot + 1),
    value,
    confidence,
    source: { kind: 'user_stated' },
    ...extra,
  };
}

/** The same array in reverse and rotated orders, to check that order does not matter. */
export function orders<T>(xs: readonly T[]): T[][] {
  const rotated = xs.length > 1 ? [...xs.slice(1), xs[0] as T] : [...xs];
  return [[...xs], [...xs].reverse(), rotated];
}
