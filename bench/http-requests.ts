import { BENCH_BODY } from './fixtures.ts';
import { post, type Target } from './harness.ts';

// The request of bench and bench:stores: POST /v1/profile/effective, its answer checked.

/** One request, checked: 200, JSON, `claims` of that count, some applied modifiers. Returns the body. */
export async function checked(target: Target, claims: number | undefined): Promise<string> {
  const text = await post(target, BENCH_BODY);
  const doc = JSON.parse(text) as { claims?: unknown[]; applied_modifiers?: unknown[] };
  const n = doc.claims?.length;
  if (!Array.isArray(doc.claims) || n === 0 || (claims !== undefined && n !== claims)) {
    throw new Error(`${target.name}: expected ${claims ?? 'some'} claims, got ${n ?? 'none'}`);
  }
  if (!Array.isArray(doc.applied_modifiers) || doc.applied_modifiers.length === 0) {
    throw new Error(`${target.name}: expected some applied modifiers for the bench context`);
  }
  return text;
}
