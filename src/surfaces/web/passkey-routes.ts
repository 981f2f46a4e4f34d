import type { Context, Hono } from 'hono';
import { ERROR_STATUS, type PpxFailure, type Result } from '../../model/errors.ts';
import { confirmWithPassword, noteFreshSignIn } from '../../operations/accounts/fresh-sign-in.ts';
import {
  authenticationOptions,
  credentialFrom,
  preSessionBinding,
  type RegistrationFor,
  registrationOptions,
  removePasskey,
  setPasswordSignIn,
  signInMethods,
  verifyAuthentication,
  verifyRegistration,
} from '../../operations/accounts/passkeys.ts';
import { openSession } from '../../operations/accounts/subjects-and-sessions.ts';
import { readBodyBytes } from '../shared/body.ts';
import { crossSiteProblem, currentSession, sameToken, type WebSession } from '../shared/session.ts';
import { hardenedPageHeaders } from './layout.ts';
import { signInAttempt, type WebContext } from './respond.ts';
import { preSessionCsrfCookie, safeReturnTo } from './session.ts';
import { startSession } from './signin-routes.ts';

// The passkey ceremonies as small JSON requests (docs/passkeys.md), made by the page script
// (web/app/src/passkey-page.ts) on the sign-in, sign-up and one-time link pages, and by the web
// app's "Sign-in and security" view. Each is a same-origin POST carrying the CSRF token: the
// pre-session token (cookie and field) before sign-in, the session's once signed in. A ceremony's
// challenge is bound to that cookie (`binding`), so only the browser that asked can answer it.

const BODY_LIMIT = 64 * 1024;
type Body = Record<string, unknown>;

function json(c: Context, status: 200 | 400 | 401 | 403 | 404 | 409 | 413 | 429, value: unknown): Response {
  return c.body(JSON.stringify(value), status, {
    'Content-Type': 'application/json; charset=utf-8',
    ...hardenedPageHeaders("default-src 'none'; frame-ancestors 'none'"),
  });
}

function refusal(c: Context, error: PpxFailure): Response {
  const wire = ERROR_STATUS[error.code];
  const status = wire === 409 || wire === 404 || wire === 400 ? wire : 403;
  return json(c, status, { error: error.code, error_description: error.description });
}

async function readBody(c: Context): Promise<Body | undefined> {
  const env = c.env as { incoming?: AsyncIterable<Uint8Array> } | undefined;
  const bytes = await readBodyBytes(
    {
      stream: env?.incoming ?? c.req.raw.body,
      contentLength: c.req.header('content-length'),
      contentType: c.req.header('content-type'),
    },
    BODY_LIMIT,
  );
  if (!bytes.ok) return undefined;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes.value));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : undefined;
  } catch {
    return undefined;
  }
}

const str = (body: Body, name: string): string | undefined =>
  typeof body[name] === 'string' ? (body[name] as string) : undefined;

/** A pre-session request: same origin, its CSRF token, the sign-in rate limit. */
type Guarded = { ok: true; body: Body; binding: string } | { ok: false; response: Response };

async function preSession(c: Context, web: WebContext): Promise<Guarded> {
  const problem = crossSiteProblem(c, web.plan, 'This request');
  if (problem)
    return { ok: false, response: json(c, 403, { error: 'access_denied', error_description: problem }) };
  const body = await readBody(c);
  if (!body)
    return {
      ok: false,
      response: json(c, 400, { error: 'invalid_request', error_description: 'expected a JSON object' }),
    };
  const cookie = preSessionCsrfCookie(c, web.plan);
  if (!sameToken(str(body, 'csrf'), cookie) || cookie === undefined) {
    return {
      ok: false,
      response: json(c, 403, {
        error: 'access_denied',
        error_description: 'The page had expired. Reload it and try again.',
      }),
    };
  }
  if (!(await signInAttempt(web, c)).allowed) return { ok: false, response: tooMany(c) };
  return { ok: true, body, binding: preSessionBinding(cookie) };
}

/** A signed-in request: same origin, a live session and its CSRF token (header or body). */
type Signed = { ok: true; body: Body; session: WebSession } | { ok: false; response: Response };

async function signedIn(c: Context, web: WebContext): Promise<Signed> {
  const problem = crossSiteProblem(c, web.plan, 'This request');
  if (problem)
    return { ok: false, response: json(c, 403, { error: 'access_denied', error_description: problem }) };
  const session = await currentSession(c, web.deps, web.plan);
  if (!session)
    return {
      ok: false,
      response: json(c, 401, { error: 'invalid_token', error_description: 'Sign in again.' }),
    };
  const body = c.req.method === 'GET' ? {} : await readBody(c);
  if (!body)
    return {
      ok: false,
      response: json(c, 400, { error: 'invalid_request', error_description: 'expected a JSON object' }),
    };
  if (!sameToken(c.req.header('x-csrf-token') ?? str(body, 'csrf'), session.csrf)) {
    return {
      ok: false,
      response: json(c, 403, { error: 'access_denied', error_description: 'Reload the page and try again.' }),
    };
  }
  return { ok: true, body, session };
}

/**
 * The sign-in rate limit's refusal. Every request that leaves a challenge in the store (a row
 * live five minutes) or tries a password counts as a sign-in attempt, so that no caller, signed
 * in or not, can grow the ticket table faster than the limit allows.
 */
function tooMany(c: Context): Response {
  return json(c, 429, {
    error: 'rate_limited',
    error_description: 'Too many attempts. Wait a few minutes and try again.',
  });
}

/** Opens a session for a verified person and answers where the page goes next. */
async function signInAs(c: Context, web: WebContext, subjectId: string, returnTo: string): Promise<Response> {
  const opened = await openSession(web.deps, subjectId);
  await noteFreshSignIn(web.deps, opened.session.session_hash);
  await startSession(c, web, opened.secret);
  return json(c, 200, { redirect_to: returnTo });
}

async function answer<T>(c: Context, result: Result<T>): Promise<Response> {
  return result.ok ? json(c, 200, result.value) : refusal(c, result.error);
}

export function registerPasskeyRoutes(app: Hono, web: WebContext): void {
  // Sign in with a passkey (any of this provider's: the browser offers the person's own).
  app.post('/passkeys/signin/options', async (c) => {
    const g = await preSession(c, web);
    if (!g.ok) return g.response;
    return json(c, 200, await authenticationOptions(web.deps, g.binding));
  });
  app.post('/passkeys/signin', async (c) => {
    const g = await preSession(c, web);
    if (!g.ok) return g.response;
    const credential = credentialFrom(str(g.body, 'credential'));
    if (!credential)
      return json(c, 400, { error: 'invalid_request', error_description: 'no passkey answer' });
    const verified = await verifyAuthentication(web.deps, { response: credential, binding: g.binding });
    if (!verified.ok) return refusal(c, verified.error);
    return signInAs(c, web, verified.value.subjectId, safeReturnTo(str(g.body, 'return_to')));
  });

  // A new account with a passkey and no password (only where sign-up is on), and a one-time link's
  // first passkey (`ppx subject add --no-password`).
  const register = (who: (b: Body) => RegistrationFor | undefined) => ({
    options: async (c: Context) => {
      const g = await preSession(c, web);
      if (!g.ok) return g.response;
      const target = who(g.body);
      if (!target) return json(c, 400, { error: 'invalid_request', error_description: 'missing input' });
      return answer(c, await registrationOptions(web.deps, target, g.binding));
    },
    verify: async (c: Context) => {
      const g = await preSession(c, web);
      if (!g.ok) return g.response;
      const credential = credentialFrom(str(g.body, 'credential'));
      if (!credential)
        return json(c, 400, { error: 'invalid_request', error_description: 'no passkey answer' });
      const done = await verifyRegistration(web.deps, {
        response: credential,
        binding: g.binding,
        name: str(g.body, 'name'),
      });
      if (!done.ok) return refusal(c, done.error);
      return signInAs(c, web, done.value.subjectId, safeReturnTo(str(g.body, 'return_to')));
    },
  });
  if (web.signupEnabled) {
    const signup = register((b) => {
      const username = str(b, 'username');
      return username === undefined ? undefined : { kind: 'new_account', username };
    });
    app.post('/passkeys/signup/options', signup.options);
    app.post('/passkeys/signup', signup.verify);
  }
  const setup = register((b) => {
    const token = str(b, 'token');
    return token === undefined ? undefined : { kind: 'setup_link', token };
  });
  app.post('/passkeys/setup/options', setup.options);
  app.post('/passkeys/setup', setup.verify);

  // The signed-in person's own passkeys (the web app's "Sign-in and security" view).
  app.get('/app/api/sign-in-methods', async (c) => {
    const g = await signedIn(c, web);
    if (!g.ok) return g.response;
    return json(c, 200, await signInMethods(web.deps, g.session.record.subject_id));
  });
  app.post('/app/api/passkeys/options', async (c) => {
    const g = await signedIn(c, web);
    if (!g.ok) return g.response;
    if (!(await signInAttempt(web, c)).allowed) return tooMany(c);
    const who: RegistrationFor = { kind: 'account', subjectId: g.session.record.subject_id };
    return answer(c, await registrationOptions(web.deps, who, g.session.record.session_hash));
  });
  app.post('/app/api/passkeys', async (c) => {
    const g = await signedIn(c, web);
    if (!g.ok) return g.response;
    const credential = credentialFrom(str(g.body, 'credential'));
    if (!credential)
      return json(c, 400, { error: 'invalid_request', error_description: 'no passkey answer' });
    const done = await verifyRegistration(web.deps, {
      response: credential,
      binding: g.session.record.session_hash,
      name: str(g.body, 'name'),
    });
    if (!done.ok) return refusal(c, done.error);
    if (done.value.subjectId !== g.session.record.subject_id) {
      return json(c, 403, { error: 'access_denied', error_description: 'the passkey could not be verified' });
    }
    return json(c, 200, await signInMethods(web.deps, done.value.subjectId));
  });
  app.post('/app/api/passkeys/remove', async (c) => {
    const g = await signedIn(c, web);
    if (!g.ok) return g.response;
    const subjectId = g.session.record.subject_id;
    const removed = await removePasskey(web.deps, subjectId, str(g.body, 'id') ?? '');
    if (!removed.ok) return refusal(c, removed.error);
    return json(c, 200, await signInMethods(web.deps, subjectId));
  });
  app.post('/app/api/password-sign-in', async (c) => {
    const g = await signedIn(c, web);
    if (!g.ok) return g.response;
    return answer(c, await setPasswordSignIn(web.deps, g.session.record.subject_id, g.body['on'] === true));
  });

  // A signed-in person confirms it is them (fresh sign-in for sensitive consent decisions).
  app.post('/app/api/confirm/options', async (c) => {
    const g = await signedIn(c, web);
    if (!g.ok) return g.response;
    if (!(await signInAttempt(web, c)).allowed) return tooMany(c);
    const { record } = g.session;
    return json(c, 200, await authenticationOptions(web.deps, record.session_hash, record.subject_id));
  });
  app.post('/app/api/confirm', async (c) => {
    const g = await signedIn(c, web);
    if (!g.ok) return g.response;
    // A person without a passkey confirms with their password (rate limited as a sign-in).
    const password = str(g.body, 'password');
    if (password !== undefined) {
      if (!(await signInAttempt(web, c)).allowed) return tooMany(c);
      const confirmed = await confirmWithPassword(web.deps, g.session.record, password);
      return confirmed.ok ? json(c, 200, { confirmed: true }) : refusal(c, confirmed.error);
    }
    const credential = credentialFrom(str(g.body, 'credential'));
    if (!credential)
      return json(c, 400, { error: 'invalid_request', error_description: 'no passkey answer' });
    const { record } = g.session;
    const verified = await verifyAuthentication(web.deps, {
      response: credential,
      binding: record.session_hash,
    });
    if (!verified.ok) return refusal(c, verified.error);
    await noteFreshSignIn(web.deps, record.session_hash);
    return json(c, 200, { confirmed: true });
  });
}
