import type { Context } from 'hono';
import type { PpxFailure } from '../../model/errors.ts';
import type { Deps } from '../../operations/deps.ts';
import { type RateLimitName, takeRate } from '../../operations/provider/rate-limits.ts';

// Rate limiting as every surface applies it: count the request (operations/provider/rate-limits.ts), and
// say so in the headers of draft-ietf-httpapi-ratelimit-headers.

export interface Limited {
  readonly allowed: boolean;
  /** RateLimit-Policy, -Limit, -Remaining, -Reset, and Retry-After once refused. */
  readonly headers: readonly [string, string][];
}

/** Counts one request of `key()` against the named limit; undefined when the limit is off. */
export async function limitRequest(
  deps: Deps,
  name: RateLimitName,
  key: () => string,
): Promise<Limited | undefined> {
  const d = await takeRate(deps, name, key);
  if (d === undefined) return undefined;
  const headers: [string, string][] = [
    ['RateLimit-Policy', `${d.limit};w=${d.windowSeconds}`],
    ['RateLimit-Limit', String(d.limit)],
    ['RateLimit-Remaining', String(d.remaining)],
    ['RateLimit-Reset', String(d.resetSeconds)],
  ];
  if (!d.allowed) headers.push(['Retry-After', String(d.resetSeconds)]);
  return { allowed: d.allowed, headers };
}

export const RATE_LIMITED: PpxFailure = {
  code: 'rate_limited',
  description: 'too many requests; retry after the time in Retry-After',
};

/** The address a request came from, as the limits count it ('unknown' without Node's socket). */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/** The authorization server's 429 (RFC 6749 §5.2 error shape), with the RateLimit-* headers. */
export function oauthRateLimited(limited: Limited): Response {
  const headers = new Headers(limited.headers as [string, string][]);
  headers.set('Content-Type', 'application/json');
  return new Response(JSON.stringify({ error: 'rate_limited', error_description: 'too many requests' }), {
    status: 429,
    headers,
  });
}
