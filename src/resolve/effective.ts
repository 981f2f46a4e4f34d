import type { Claim } from '../model/claim.ts';
import type { ContextModifier, ResolutionContext } from '../model/context-modifier.ts';
import { applyLifecycle } from './lifecycle.ts';
import { ClaimSet, conditionMatches } from './modifiers.ts';
import { compareBy } from './order.ts';

// get_effective_profile (SPEC §9): claims plus the context modifiers active for a supplied context.
// Pure: no I/O, no clock; `now` is an argument so the same input always yields the same output.

export interface ResolveInput {
  /** Claims the caller may see (already filtered by the grant). */
  claims: readonly Claim[];
  modifiers: readonly ContextModifier[];
  context: ResolutionContext;
  now: Date;
}

export interface ResolvedProfile {
  claims: Claim[];
  /** Ids of modifiers that matched the context and named a visible claim, in application order. */
  applied_modifiers: string[];
}

const byModifier = compareBy<ContextModifier>([(m) => m.modifier_id]);
const byClaim = compareBy<Claim>([(c) => c.namespace, (c) => c.key, (c) => c.claim_id]);

export function resolveEffectiveProfile(input: ResolveInput): ResolvedProfile {
  // SPEC §5.2 lifecycle first, so expired claims neither appear nor make a modifier "applied".
  const live: Claim[] = [];
  for (const claim of input.claims) {
    const c = applyLifecycle(claim, input.now);
    if (c !== undefined) live.push(c);
  }
  const set = new ClaimSet(live);
  const applied: string[] = [];
  // Modifiers apply in modifier_id order: effects compose (two adjustments, a veto after an
  // override), so a fixed order is what makes the result independent of storage order.
  for (const modifier of [...input.modifiers].sort(byModifier)) {
    // SPEC §5.3 condition
    if (!conditionMatches(modifier.condition, input.context)) continue;
    if (set.apply(modifier)) applied.push(modifier.modifier_id);
  }
  const claims = set.claims();
  // Stored claims usually arrive in this order already; checking is cheaper than sorting.
  if (!isSorted(claims, byClaim)) claims.sort(byClaim);
  return { claims, applied_modifiers: applied };
}

function isSorted<T>(xs: readonly T[], compare: (a: T, b: T) => number): boolean {
  for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1] as T, xs[i] as T) > 0) return false;
  return true;
}
