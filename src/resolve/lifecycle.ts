import type { Claim } from '../model/claim.ts';
import { MS_PER_DAY } from '../model/vocabulary.ts';
import { round4 } from './round.ts';

// Claim lifecycle (SPEC §5.2 `lifecycle`): expiry and confidence decay, computed against an
// explicit `now` so resolution stays pure and reproducible.

export { MS_PER_DAY };
/** Linear decay horizon when a claim has `last_confirmed_at` but no `expires_at`. */
export const DEFAULT_LINEAR_HORIZON_DAYS = 365;
/** Exponential half-life when a claim has `last_confirmed_at` but no `expires_at`. */
export const DEFAULT_EXPONENTIAL_HALF_LIFE_DAYS = 180;

/** Parses an RFC 3339 timestamp; unparsable values count as absent rather than throwing mid-resolution. */
function timeOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

type Lifecycle = NonNullable<Claim['lifecycle']>;

/** Parsed instants of a lifecycle, remembered per object (stored claims are reused read-only). */
const instants = new WeakMap<Lifecycle, { expires: number | undefined; confirmed: number | undefined }>();

function instantsOf(lifecycle: Lifecycle) {
  let t = instants.get(lifecycle);
  if (t === undefined) {
    t = { expires: timeOf(lifecycle.expires_at), confirmed: timeOf(lifecycle.last_confirmed_at) };
    instants.set(lifecycle, t);
  }
  return t;
}

/** The multiplier applied to confidence, or 1 when no decay applies. */
function decayFactor(lifecycle: Lifecycle, now: number): number {
  const policy = lifecycle.decay_policy ?? 'none';
  // SPEC §5.2 decay_policy `none` (or absent): confidence is left as stated.
  if (policy === 'none') return 1;
  // Decay is measured from the last confirmation; without one there is no reference point.
  const { confirmed, expires } = instantsOf(lifecycle);
  if (confirmed === undefined) return 1;
  const elapsed = now - confirmed;
  // A confirmation at or after `now` (clock skew, future-dated import) means nothing has decayed yet.
  if (elapsed <= 0) return 1;
  // A non-expired claim has expires > now > confirmed, so the span is positive whenever it is used.
  const span = expires !== undefined && expires > confirmed ? expires - confirmed : undefined;
  if (policy === 'linear') {
    // SPEC §5.2 decay_policy `linear`: reaches 0 at expiry (or after the default horizon).
    const horizon = span ?? DEFAULT_LINEAR_HORIZON_DAYS * MS_PER_DAY;
    return Math.max(0, 1 - elapsed / horizon);
  }
  // SPEC §5.2 decay_policy `exponential`: halves every half-life; half the validity window when known.
  const halfLife = span !== undefined ? span / 2 : DEFAULT_EXPONENTIAL_HALF_LIFE_DAYS * MS_PER_DAY;
  return 0.5 ** (elapsed / halfLife);
}

/** What `lifecycleConfidence` answers for a claim that has expired. */
export const EXPIRED = -1;

/**
 * The confidence a claim has as of `now` after expiry and decay, or EXPIRED. Allocates nothing,
 * so a cached resolution can be checked against it cheaply (resolveShared in
 * resolve/shared-resolution.ts).
 */
export function lifecycleConfidence(claim: Claim, now: number): number {
  const lifecycle = claim.lifecycle;
  if (lifecycle === undefined) return claim.confidence;
  const { expires } = instantsOf(lifecycle);
  // SPEC §5.2 expires_at: the claim is no longer valid from that instant on (boundary inclusive).
  if (expires !== undefined && expires <= now) return EXPIRED;
  const factor = decayFactor(lifecycle, now);
  return factor === 1 ? claim.confidence : round4(claim.confidence * factor);
}

/**
 * Applies expiry and decay to one claim as of `now`. Returns undefined for an expired claim,
 * the same object when nothing changes, and a shallow copy with a new confidence otherwise.
 */
export function applyLifecycle(claim: Claim, now: Date): Claim | undefined {
  const confidence = lifecycleConfidence(claim, now.getTime());
  if (confidence === EXPIRED) return undefined;
  return confidence === claim.confidence ? claim : { ...claim, confidence };
}
