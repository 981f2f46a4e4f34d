import type { Result } from '../../model/errors.ts';
import type { NewSession } from '../../operations/accounts/subjects-and-sessions.ts';
import { signIn } from '../../operations/accounts/subjects-and-sessions.ts';
import type { Deps } from '../../operations/deps.ts';
import { html, type SafeHtml } from './escape.ts';
import { errorBox, page } from './layout.ts';
import { type Form, field } from './session.ts';

/**
 * How a person proves who they are on the web pages. The password method is the default;
 * another (a passkey, an upstream identity provider) replaces it where the web app is created.
 */
export interface SignInMethod {
  /** The method's own inputs, placed inside the sign-in form (the page adds CSRF and return_to). */
  fields(form?: Form): SafeHtml;
  /**
   * Checks the submitted inputs and opens a session for the subject they identify
   * (`session.subject_id`). Every failure should read the same, whichever part was wrong.
   */
  verify(deps: Deps, form: Form): Promise<Result<NewSession>>;
}

/** Username and password, checked by operations/accounts/subjects-and-sessions.ts (scrypt, no account enumeration). */
export const passwordSignIn: SignInMethod = {
  fields(form = {}) {
    return html`<div class="field"><label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="64" value="${field(form, 'username') ?? ''}"></div>
<div class="field"><label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required maxlength="200"></div>`;
  },
  async verify(deps, form) {
    const username = field(form, 'username') ?? '';
    const password = field(form, 'password') ?? '';
    return signIn(deps, username.slice(0, 64), password.slice(0, 200));
  },
};

export interface SignInPageInput {
  readonly method: SignInMethod;
  readonly csrf: string;
  readonly returnTo: string;
  readonly providerName: string;
  readonly error?: string | undefined;
  readonly form?: Form;
  readonly signupEnabled: boolean;
  /** Why the person is asked to sign in (e.g. an app asks for their consent). */
  readonly reason?: string;
  /** The passkey script, when the app bundle is built: the page then offers a passkey. */
  readonly passkeyScript?: string | undefined;
}

export function signInPage(input: SignInPageInput): SafeHtml {
  const signup = input.signupEnabled
    ? html`<p class="hint">No account yet? <a href="/signup?return_to=${encodeURIComponent(input.returnTo)}">Create one</a>.</p>`
    : html``;
  return page(
    'Sign in',
    html`<section class="card">
<h1>Sign in</h1>
${input.reason ? html`<p>${input.reason}</p>` : ''}
${errorBox(input.error)}
<form method="post" action="/signin">
<input type="hidden" name="csrf" value="${input.csrf}">
<input type="hidden" name="return_to" value="${input.returnTo}">
${input.method.fields(input.form)}
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
${input.passkeyScript ? passkeyForm(input.csrf, input.returnTo) : ''}
${signup}
</section>`,
    input.providerName,
    input.passkeyScript,
  );
}

/** A passkey button, hidden until the passkey script shows it (no dead button without scripts). */
function passkeyForm(csrf: string, returnTo: string): SafeHtml {
  return html`<form class="passkey" method="post" action="/signin">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="return_to" value="${returnTo}">
<div class="actions"><button type="button" data-passkey="signin" hidden>Sign in with a passkey</button></div>
</form>`;
}

export function signedInPage(input: { username: string; csrf: string; providerName: string }): SafeHtml {
  return page(
    'Signed in',
    html`<section class="card">
<h1>You are signed in</h1>
<p>Signed in as <strong>${input.username}</strong>.</p>
<p><a href="/app">See your preferences, who can see them, and what apps have asked</a>.</p>
<p class="hint">When an app asks for your preferences, open the link it gives you to review the request.</p>
${signOutForm(input.csrf)}
</section>`,
    input.providerName,
  );
}

export function signOutForm(csrf: string, label = 'Sign out'): SafeHtml {
  return html`<form method="post" action="/signout" class="inline">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit">${label}</button>
</form>`;
}

/** A short page for refusals and dead ends, with an optional extra block. */
export function messagePage(
  providerName: string,
  title: string,
  message: string,
  extra: SafeHtml = html``,
): SafeHtml {
  return page(
    title,
    html`<section class="card"><h1>${title}</h1><p>${message}</p>${extra}</section>`,
    providerName,
  );
}
