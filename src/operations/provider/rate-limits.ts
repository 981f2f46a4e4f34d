import type { PendingCaps } from '../../config.ts';
import type { RateCounter, RateDecision, RateLimit } from '../../store/rate-limits.ts';
import type { Deps } from '../deps.ts';

// The provider's named rate limits (docs/http-api.md): which requests share a budget, and how
// large it is. The counting itself is the `RateCounter` port on Deps.

/** `api`: the HTTP API and /mcp (one budget per token, else per address); `oauth`: the
 * authorization server's endpoints, per address; `signin`: sign-in and sign-up attempts. */
export type RateLimitName = 'api' | 'oauth' | 'signin';

export interface RateLimits {
  readonly counter: RateCounter;
  readonly limits: Readonly<Record<RateLimitName, RateLimit>>;
  /** Consent requests that may wait for one person at once (consent/pending-caps.ts). */
  readonly pendingCaps: PendingCaps;
}

/** Sign-in attempts allowed per address in each window. */
const SIGNIN_ATTEMPTS = 20;
const SIGNIN_WINDOW_SECONDS = 300;

/** The limits of a configuration; a `rateLimit` of 0 turns every one of them off. */
export function rateLimitsOf(config: {
  rateLimit: number;
  rateWindowSeconds: number;
}): Record<RateLimitName, RateLimit> {
  const window = config.rateWindowSeconds;
  return {
    api: { name: 'api', limit: config.rateLimit, windowSeconds: window },
    oauth: { name: 'oauth', limit: config.rateLimit, windowSeconds: window },
    signin: {
      name: 'signin',
      limit: config.rateLimit === 0 ? 0 : SIGNIN_ATTEMPTS,
      windowSeconds: SIGNIN_WINDOW_SECONDS,
    },
  };
}

/**
 * Counts one request of `key()` now; undefined when that limit is off. The key is made only when
 * the request is counted (a token's is a hash of it, not worth making when limits are off).
 */
export async function takeRate(
  deps: Deps,
  name: RateLimitName,
  key: () => string,
): Promise<RateDecision | undefined> {
  const limit = deps.rateLimits.limits[name];
  if (limit.limit === 0) return undefined;
  return deps.rateLimits.counter.take(limit, key(), deps.clock());
}
