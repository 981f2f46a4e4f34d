import type { Context, Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { askingAppWords } from '../../model/client.ts';
import { notePasswordSignIn } from '../../operations/accounts/fresh-sign-in.ts';
import { signedInName, signOut } from '../../operations/accounts/subjects-and-sessions.ts';
import { type AskingApp, askingApp } from '../../operations/consent/preview.ts';
import { crossSiteProblem, currentSession, sameToken } from '../shared/session.ts';
import { PASSKEY_PAGE_CSP } from './layout.ts';
import { providerName, seeOther, send, signInAttempt, type WebContext } from './respond.ts';
import {
  clearSessionCookie,
  type Form,
  field,
  preSessionCsrf,
  preSessionCsrfCookie,
  readForm,
  safeReturnTo,
  setSessionCookie,
} from './session.ts';
import { messagePage, signedInPage, signInPage } from './signin.ts';

/** The sign-in and sign-up pages load the passkey script (docs/passkeys.md). */
export const passkeyPageHeaders = [['Content-Security-Policy', PASSKEY_PAGE_CSP]] as const;

/**
 * The sign-in form as a response (also shown in place of a page that needs a session). When the
 * person is on their way to a consent request, it names the app that is asking.
 */
export async function showSignIn(
  c: Context,
  web: WebContext,
  input: { returnTo: string; error?: string; form?: Form },
  status: 200 | 401 | 403 | 429 = 200,
  headers: readonly (readonly [string, string])[] = [],
): Promise<Response> {
  const reason = await signInReason(web, input.returnTo);
  const body = signInPage({
    method: web.signIn,
    csrf: preSessionCsrf(c, web.plan),
    returnTo: input.returnTo,
    providerName: providerName(web),
    error: input.error,
    ...(input.form ? { form: input.form } : {}),
    ...(reason ? { reason } : {}),
    signupEnabled: web.signupEnabled,
    passkeyScript: await web.passkeyScript(),
  });
  return send(c, body, status, [], [...headers, ...passkeyPageHeaders]);
}

const GENERIC_REASON =
  'An app is asking to use your preferences. Sign in to see exactly what it asks for, and decide.';

/** Why the person is asked to sign in, when the page they are going to is a consent request. */
async function signInReason(web: WebContext, returnTo: string): Promise<string | undefined> {
  const url = new URL(returnTo, 'http://local.invalid');
  const consent = /^\/consent\/([^/]+)$/.exec(url.pathname);
  const clientId = url.searchParams.get('client_id');
  const redirectUri = url.searchParams.get('redirect_uri') ?? undefined;
  let app: AskingApp | undefined;
  if (consent) app = await askingApp(web.deps, { grantRequestId: decodeURIComponent(consent[1]!) });
  else if (url.pathname === '/oauth/authorize' && clientId) {
    app = await askingApp(web.deps, { clientId, ...(redirectUri ? { redirectUri } : {}) });
  } else return undefined;
  if (!app) return GENERIC_REASON;
  // The name is the app's own choice: unless someone vouches for it, say so (with its host).
  return `${askingAppWords(app.app)} is asking to use your preferences. Sign in to see exactly what it asks for, and decide.`;
}

export function refused(c: Context, web: WebContext, reason: string): Response {
  return send(c, messagePage(providerName(web), 'Request refused', reason), 403);
}

export function registerSignInRoutes(app: Hono, web: WebContext): void {
  app.get('/signin', async (c) => {
    const session = await currentSession(c, web.deps, web.plan);
    if (!session) return showSignIn(c, web, { returnTo: safeReturnTo(c.req.query('return_to')) });
    const username = await signedInName(web.deps, session.record);
    return send(
      c,
      signedInPage({
        username,
        csrf: session.csrf,
        providerName: providerName(web),
      }),
    );
  });

  app.post('/signin', async (c) => {
    const problem = crossSiteProblem(c, web.plan);
    if (problem) return refused(c, web, problem);
    const form = await readForm(c);
    const returnTo = safeReturnTo(field(form, 'return_to'));
    if (!sameToken(field(form, 'csrf'), preSessionCsrfCookie(c, web.plan))) {
      return showSignIn(c, web, { returnTo, error: 'The sign-in form had expired. Please try again.' }, 403);
    }
    const attempt = await signInAttempt(web, c);
    if (!attempt.allowed) {
      return showSignIn(
        c,
        web,
        { returnTo, error: 'Too many sign-in attempts. Wait a few minutes and try again.' },
        429,
        attempt.headers,
      );
    }
    const signedIn = await web.signIn.verify(web.deps, form);
    if (!signedIn.ok) {
      const off = signedIn.error.description.includes('turned off');
      const error = off
        ? 'Password sign-in is turned off for this account. Sign in with a passkey.'
        : 'The username or password is wrong.';
      return showSignIn(c, web, { returnTo, form, error }, 401);
    }
    await startSession(c, web, signedIn.value.secret);
    await notePasswordSignIn(web.deps, signedIn.value.session);
    return seeOther(c, returnTo);
  });

  app.post('/signout', async (c) => {
    const problem = crossSiteProblem(c, web.plan);
    if (problem) return refused(c, web, problem);
    const session = await currentSession(c, web.deps, web.plan);
    if (!session) return seeOther(c, '/signin');
    const form = await readForm(c);
    if (!sameToken(field(form, 'csrf'), session.csrf)) {
      return refused(c, web, 'This form could not be verified. Reload the page and try again.');
    }
    await signOut(web.deps, session.secret);
    clearSessionCookie(c, web.plan);
    return seeOther(c, '/signin');
  });
}

/**
 * Puts a new session in the browser (sign-in and sign-up alike): a new session every time (no
 * fixation), the one the browser had ends here, and the pre-session CSRF cookie goes.
 */
export async function startSession(c: Context, web: WebContext, secret: string): Promise<void> {
  const previous = await currentSession(c, web.deps, web.plan);
  if (previous) await signOut(web.deps, previous.secret);
  setSessionCookie(c, web.plan, secret);
  deleteCookie(c, web.plan.csrf, { path: '/', secure: web.plan.secure });
}
