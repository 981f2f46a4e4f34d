import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { SessionRecord } from '../../model/account.ts';
import { csrfTokenOf, sessionFrom } from '../../operations/accounts/subjects-and-sessions.ts';
import type { Deps } from '../../operations/deps.ts';
import { noteCaller } from './access-log.ts';

// The person's browser session as every surface reads it: the cookie the sign-in page sets, and
// the cross-site and CSRF checks any state-changing request on a cookie must pass. Here, not in
// surfaces/web, because the web pages and the AG-UI stream both take the session and surfaces
// never import each other.

/** Cookie names and attributes follow the base URL: `__Host-` names and Secure on https. */
export interface CookiePlan {
  readonly secure: boolean;
  readonly session: string;
  /** The pre-session anti-CSRF cookie of the sign-in and sign-up forms (double submit). */
  readonly csrf: string;
  /** The origin every state-changing request on the session must come from. */
  readonly origin: string;
}

export function cookiePlan(baseUrl: string): CookiePlan {
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:';
  return {
    secure,
    session: secure ? '__Host-ppx_session' : 'ppx_session',
    csrf: secure ? '__Host-ppx_csrf' : 'ppx_csrf',
    origin: url.origin,
  };
}

export interface WebSession {
  /** The cookie value (the store keeps only its hash). */
  readonly secret: string;
  readonly record: SessionRecord;
  /** The session's CSRF token, made from the secret (the store keeps only its hash). */
  readonly csrf: string;
}

export async function currentSession(
  c: Context,
  deps: Deps,
  plan: CookiePlan,
): Promise<WebSession | undefined> {
  const secret = getCookie(c, plan.session);
  const record = await sessionFrom(deps, secret);
  if (!record || secret === undefined) return undefined;
  noteCaller(c.req.raw, 'session');
  return { secret, record, csrf: csrfTokenOf(secret) };
}

/** Constant-time comparison of two tokens (hashed first, so lengths never leak either). */
export function sameToken(presented: string | undefined, expected: string | undefined): boolean {
  if (presented === undefined || expected === undefined || expected === '') return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Refuses a state-changing request another site started: `Sec-Fetch-Site` must be same-origin
 * or none (or absent, for clients that do not send it), and an `Origin` header, when present,
 * must be this provider's (or `null` from a same-origin page, see below); without an `Origin`, a
 * `Referer`, when present, must be on this provider's origin. Returns the reason to refuse, or
 * undefined. `what` names the request in that reason ("This form", "This request").
 */
export function crossSiteProblem(c: Context, plan: CookiePlan, what = 'This form'): string | undefined {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return `${what} was sent from another site, so it was refused.`;
  }
  // With `Referrer-Policy: no-referrer` Chromium sends `Origin: null` even on same-origin form
  // posts; the browser-set `Sec-Fetch-Site: same-origin` then vouches for it.
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== plan.origin && !(origin === 'null' && site === 'same-origin')) {
    return `${what} was sent from another origin, so it was refused.`;
  }
  // No Origin (an older browser, a privacy extension that strips it): a Referer still says where
  // the form was. The pages send `Referrer-Policy: no-referrer`, so their own posts carry none.
  const referer = c.req.header('referer');
  if (origin === undefined && referer !== undefined && originOf(referer) !== plan.origin) {
    return `${what} was sent from another origin, so it was refused.`;
  }
  return undefined;
}

function originOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).origin : undefined;
}
