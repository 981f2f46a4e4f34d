import { IdentityMemo, share } from '../cache/identity-memo.ts';
import type { Claim } from '../model/claim.ts';
import type { ContextModifier } from '../model/context-modifier.ts';
import { type ResolvedProfile, type ResolveInput, resolveEffectiveProfile } from './effective.ts';
import { lifecycleConfidence } from './lifecycle.ts';

// Resolution is pure, and most reads repeat it: same stored claims, same modifiers, same context.
// This is resolveEffectiveProfile with its result reused while the inputs are the same objects
// and time has changed nothing. Time enters resolution only through lifecycle (expiry, and decay
// rounded to 4 decimals), so an entry keeps each input claim's lifecycle confidence at the time
// it was computed, and is reused only when every one is still the same now. Checking that costs
// one arithmetic pass over the claims; resolving again costs the modifiers and the copies.

interface Entry {
  readonly modifiers: readonly ContextModifier[];
  readonly confidences: Float64Array;
  readonly result: ResolvedProfile;
}

/** Distinct contexts remembered per claim array. */
const MAX_CONTEXTS = 8;
const entries = new IdentityMemo<readonly Claim[], Entry>(MAX_CONTEXTS);

/**
 * resolveEffectiveProfile, shared between requests: the same result (share()d, never written
 * to) goes to every caller that resolves the same inputs, and what the layers above derive from
 * it is cached by its identity.
 */
export function resolveShared(input: ResolveInput): ResolvedProfile {
  const key = JSON.stringify(input.context);
  const now = input.now.getTime();
  const hit = entries.get(input.claims, key);
  if (
    hit !== undefined &&
    hit.modifiers === input.modifiers &&
    unchanged(hit.confidences, input.claims, now)
  ) {
    return hit.result;
  }
  const result = resolveEffectiveProfile(input);
  share(result.claims);
  share(result.applied_modifiers);
  share(result);
  entries.set(input.claims, key, {
    modifiers: input.modifiers,
    confidences: confidencesAt(input.claims, now),
    result,
  });
  return result;
}

function confidencesAt(claims: readonly Claim[], now: number): Float64Array {
  const out = new Float64Array(claims.length);
  for (let i = 0; i < claims.length; i++) out[i] = lifecycleConfidence(claims[i] as Claim, now);
  return out;
}

function unchanged(confidences: Float64Array, claims: readonly Claim[], now: number): boolean {
  for (let i = 0; i < claims.length; i++) {
    if (confidences[i] !== lifecycleConfidence(claims[i] as Claim, now)) return false;
  }
  return true;
}
