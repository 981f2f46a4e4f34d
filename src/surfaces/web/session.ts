import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SESSION_TTL_SECONDS } from '../../operations/accounts/subjects-and-sessions.ts';
import type { CookiePlan } from '../shared/session.ts';

// The web pages' own cookie work: setting and clearing the session, the pre-session CSRF cookie
// of the sign-in forms, return paths and form fields. Reading a session and the cross-site
// checks are in surfaces/shared/session.ts (the AG-UI stream takes the session too).

export function setSessionCookie(c: Context, plan: CookiePlan, secret: string): void {
  setCookie(c, plan.session, secret, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: plan.secure,
    path: '/',
    maxAge: SESSION_TTL_SECONDS,
  });
}

export function clearSessionCookie(c: Context, plan: CookiePlan): void {
  deleteCookie(c, plan.session, { path: '/', secure: plan.secure, httpOnly: true, sameSite: 'Lax' });
}

/** The pre-session CSRF token: the one in the cookie, or a fresh one set now. */
export function preSessionCsrf(c: Context, plan: CookiePlan): string {
  const existing = getCookie(c, plan.csrf);
  if (existing !== undefined && /^[A-Za-z0-9_-]{32,64}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(c, plan.csrf, token, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: plan.secure,
    path: '/',
    maxAge: 3600,
  });
  return token;
}

export function preSessionCsrfCookie(c: Context, plan: CookiePlan): string | undefined {
  return getCookie(c, plan.csrf);
}

/**
 * The longest return path kept. It is usually an authorization request, whose
 * `authorization_details` (up to ten elements for a grant package) easily pass a kilobyte; the
 * limit keeps `/signin?return_to=…` (the path encoded again) under Node's 16 KiB header limit.
 */
export const RETURN_TO_LIMIT = 8192;

/**
 * Where to go after signing in: a path on this site only, the person's web app (/app) when none
 * is named. Absolute URLs, scheme-relative `//` and backslash tricks (`/\evil`) fall back to the
 * default, so sign-in is no open redirect.
 */
export function safeReturnTo(raw: unknown, fallback = '/app'): string {
  if (typeof raw !== 'string' || raw.length > RETURN_TO_LIMIT) return fallback;
  if (!raw.startsWith('/') || raw.startsWith('//') || /[\\\s\p{Cc}]/u.test(raw)) return fallback;
  // Resolve against a dummy origin: anything that leaves it is not a local path.
  const resolved = new URL(raw, 'http://local.invalid');
  if (resolved.origin !== 'http://local.invalid') return fallback;
  // Dot segments can make the resolved path scheme-relative (`/.//evil` becomes `//evil`), which
  // a browser reads as another host: only a path that stays one is returned.
  const path = resolved.pathname + resolved.search;
  return path.startsWith('//') ? fallback : path;
}

export type Form = Record<string, string | string[]>;

/** The form fields, a repeated field as an array; non-form bodies read as empty. */
export async function readForm(c: Context): Promise<Form> {
  const type = c.req.header('content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return {};
  let body: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    body = await c.req.parseBody({ all: true });
  } catch {
    // A body labelled multipart that is not (no boundary, broken parts) has no fields: every
    // form's CSRF check then refuses it, with the page's own message, never a 500.
    return {};
  }
  const out: Form = {};
  for (const [k, v] of Object.entries(body)) {
    const values = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
    out[k] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

export function field(form: Form, name: string): string | undefined {
  const v = form[name];
  return typeof v === 'string' ? v : undefined;
}

export function fields(form: Form, name: string): string[] {
  const v = form[name];
  return v === undefined ? [] : typeof v === 'string' ? [v] : v;
}
