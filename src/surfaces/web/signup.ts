import type { Hono } from 'hono';
import { createSubject, SubjectInput, signIn } from '../../operations/accounts/subjects-and-sessions.ts';
import { crossSiteProblem, sameToken } from '../shared/session.ts';
import { html } from './escape.ts';
import { errorBox, page } from './layout.ts';
import { providerName, seeOther, send, signInAttempt, type WebContext } from './respond.ts';
import { type Form, field, preSessionCsrf, preSessionCsrfCookie, readForm, safeReturnTo } from './session.ts';
import { passkeyPageHeaders, refused, startSession } from './signin-routes.ts';

/** Self-service accounts, registered only when the operator enables sign-up. */
export function registerSignupRoutes(app: Hono, web: WebContext): void {
  app.get('/signup', async (c) => {
    const page = signupPage(web, preSessionCsrf(c, web.plan), safeReturnTo(c.req.query('return_to')));
    return send(c, await page, 200, [], passkeyPageHeaders);
  });

  app.post('/signup', async (c) => {
    const problem = crossSiteProblem(c, web.plan);
    if (problem) return refused(c, web, problem);
    const form = await readForm(c);
    const returnTo = safeReturnTo(field(form, 'return_to'));
    const again = async (
      error: string,
      status: 400 | 403 | 409 | 429,
      headers: readonly (readonly [string, string])[] = [],
    ) =>
      send(
        c,
        await signupPage(web, preSessionCsrf(c, web.plan), returnTo, error, form),
        status,
        [],
        [...headers, ...passkeyPageHeaders],
      );
    if (!sameToken(field(form, 'csrf'), preSessionCsrfCookie(c, web.plan))) {
      return again('The form had expired. Please try again.', 403);
    }
    const attempt = await signInAttempt(web, c);
    if (!attempt.allowed)
      return again('Too many attempts. Wait a few minutes and try again.', 429, attempt.headers);
    const password = field(form, 'password') ?? '';
    if (password !== field(form, 'password_again')) return again('The two passwords differ.', 400);
    const input = SubjectInput.safeParse({ username: field(form, 'username') ?? '', password });
    if (!input.success) return again(capitalize(input.error.issues[0]?.message ?? 'invalid input'), 400);
    const created = await createSubject(web.deps, input.data);
    if (!created.ok) return again('That username is taken. Choose another one.', 409);
    const session = await signIn(web.deps, input.data.username, password);
    if (!session.ok) return again('The account was created, but signing in failed. Sign in again.', 400);
    await startSession(c, web, session.value.secret);
    return seeOther(c, returnTo);
  });
}

async function signupPage(web: WebContext, csrf: string, returnTo: string, error?: string, form: Form = {}) {
  const script = await web.passkeyScript();
  return page(
    'Create an account',
    html`<section class="card">
<h1>Create an account</h1>
${errorBox(error)}
<form method="post" action="/signup">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="return_to" value="${returnTo}">
<div class="field"><label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" required maxlength="64" value="${field(form, 'username') ?? ''}">
<p class="hint">3–64 letters, digits, dots, dashes or underscores.</p></div>
<div class="field"><label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="10" maxlength="200"></div>
<div class="field"><label for="password_again">Password again</label>
<input type="password" id="password_again" name="password_again" autocomplete="new-password" required minlength="10" maxlength="200"></div>
<div class="actions"><button type="submit" class="primary">Create account</button></div>
</form>
${script ? passkeySignup(csrf, returnTo) : ''}
<p class="hint">Already have one? <a href="/signin?return_to=${encodeURIComponent(returnTo)}">Sign in</a>.</p>
</section>`,
    providerName(web),
    script,
  );
}

/** Sign-up with a passkey and no password; its button shows once the passkey script runs. */
function passkeySignup(csrf: string, returnTo: string) {
  return html`<form class="passkey" method="post" action="/signup">
<h2>Or use a passkey instead of a password</h2>
<p class="hint">Your device keeps the key (unlocked by your fingerprint, face or screen lock); there is no password to remember.</p>
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="return_to" value="${returnTo}">
<div class="field"><label for="passkey-username">Username</label>
<input type="text" id="passkey-username" name="username" autocomplete="username webauthn" required maxlength="64"></div>
<div class="actions"><button type="button" data-passkey="signup" hidden>Create account with a passkey</button></div>
</form>`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
