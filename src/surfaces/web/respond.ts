import type { Context } from 'hono';
import type { Deps } from '../../operations/deps.ts';
import { clientAddress, limitRequest } from '../shared/rate-limit.ts';
import type { CookiePlan } from '../shared/session.ts';
import type { SafeHtml } from './escape.ts';
import { securityHeaders } from './layout.ts';
import type { SignInMethod } from './signin.ts';

/** What every web handler shares. */
export interface WebContext {
  readonly deps: Deps;
  readonly plan: CookiePlan;
  readonly signIn: SignInMethod;
  readonly signupEnabled: boolean;
  readonly log: (msg: string) => void;
  /** The passkey script's path in the app bundle, when it is built (docs/passkeys.md). */
  readonly passkeyScript: () => Promise<string | undefined>;
}

export function providerName(web: WebContext): string {
  return web.deps.provider.name;
}

/**
 * An HTML page with the hardening headers; `formTargets` widen `form-action` (see layout.ts);
 * `extra` adds headers (a refused attempt's Retry-After and RateLimit-*).
 */
export function send(
  c: Context,
  body: SafeHtml,
  status: 200 | 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 = 200,
  formTargets: readonly string[] = [],
  extra: readonly (readonly [string, string])[] = [],
): Response {
  return c.body(body.toString(), status, {
    'Content-Type': 'text/html; charset=utf-8',
    ...securityHeaders(formTargets),
    ...Object.fromEntries(extra),
  });
}

/** 303 See Other: after a form post the browser follows with a GET. */
export function seeOther(c: Context, location: string): Response {
  return c.body(null, 303, { Location: location, ...securityHeaders() });
}

/**
 * Whether one more sign-in attempt from this address is allowed now (the `signin` limit), and,
 * when it is not, the headers the refusal carries (Retry-After, RateLimit-*).
 */
export async function signInAttempt(
  web: WebContext,
  c: Context,
): Promise<{ readonly allowed: boolean; readonly headers: readonly (readonly [string, string])[] }> {
  const limited = await limitRequest(web.deps, 'signin', () => `web:${clientAddress(c)}`);
  if (limited?.allowed !== false) return { allowed: true, headers: [] };
  return { allowed: false, headers: limited.headers };
}
