import assert from 'node:assert/strict';
import type { Claim } from '../../src/model/claim.ts';
import type { PpxErrorCode, Result } from '../../src/model/errors.ts';
import type { GrantRecord } from '../../src/model/grant-record.ts';

// Builders for the policy tests. Not a *.test.ts file, so the runner does not pick it up.

export const NOW = new Date('2026-06-01T12:00:00.000Z');
export const EXPIRES = '2026-07-01T12:00:00.000Z';

/** An active fragrance grant in the shape of grant-fragrance.json; override one field per test. */
export function grant(overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    grant_id: 'ppx:grant:test-1',
    subject_id: 'did:example:user-1',
    grantee_id: 'fragrance-demo',
    status: 'active',
    granted_at: '2026-05-01T12:00:00.000Z',
    expires_at: EXPIRES,
    purposes: ['recommendation', 'ranking'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_operations: ['read'],
    cross_domain_transfer: 'deny',
    writeback_policy: 'review_required',
    redisclosure: 'forbidden',
    profile_id: 'ppx:profile:test-1',
    access_mode: 'continuous',
    ...overrides,
  };
}

export function claim(overrides: Partial<Claim> & Pick<Claim, 'claim_id'>): Claim {
  return {
    type: 'preference',
    namespace: 'core',
    key: 'novelty_tolerance',
    value: 0.5,
    value_type: 'float',
    confidence: 0.8,
    source: { kind: 'user_stated' },
    ...overrides,
  };
}

/** Asserts a refusal with exactly `code`, carrying no scope at all. */
export function assertDenied<T>(r: Result<T>, code: PpxErrorCode): void {
  assert.equal(r.ok, false, `expected ${code}, got ok`);
  if (r.ok) return;
  assert.equal(r.error.code, code);
  assert.equal('value' in r, false, 'a refusal must not carry a scope');
  assert.equal(Object.keys(r).sort().join(','), 'error,ok');
}

/** Unwraps an ok result, failing the test with the refusal otherwise. */
export function assertOk<T>(r: Result<T>): T {
  if (!r.ok) assert.fail(`expected ok, got ${r.error.code}: ${r.error.description}`);
  return r.value;
}

import { pick } from './random.ts';

export { pick, prng } from './random.ts';

/** A random non-empty subset, or `undefined` with probability `pUndefined`. */
export function subset<T>(rand: () => number, items: readonly T[], pUndefined = 0): T[] | undefined {
  if (rand() < pUndefined) return undefined;
  const out = items.filter(() => rand() < 0.5);
  return out.length > 0 ? out : [pick(rand, items)];
}
