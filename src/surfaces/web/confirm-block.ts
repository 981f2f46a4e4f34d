import type { Context } from 'hono';
import { confirmWithPassword } from '../../operations/accounts/fresh-sign-in.ts';
import { signInMethods } from '../../operations/accounts/passkeys.ts';
import type { WebSession } from '../shared/session.ts';
import { html, type SafeHtml } from './escape.ts';
import { signInAttempt, type WebContext } from './respond.ts';
import { type Form, field } from './session.ts';

// The "confirm it is you" step of the consent pages (docs/passkeys.md, "Fresh sign-in"): shown
// when an approval covering sensitive preferences was refused for want of a fresh sign-in. A
// person without a passkey types their password inside the decision form (no script needed), and
// it is checked before the approval; a person with a passkey confirms with it in the web app's
// "Sign-in and security" view, which brings them back here.

/** How the person can confirm: with their password here, or with a passkey in the web app. */
export type ConfirmStep = { readonly kind: 'password' } | { readonly kind: 'passkey'; readonly back: string };

const FIELD = 'confirm_password';

export async function confirmStepFor(
  web: WebContext,
  session: WebSession,
  back: string,
): Promise<ConfirmStep> {
  const methods = await signInMethods(web.deps, session.record.subject_id);
  return methods.passkeys.length > 0 ? { kind: 'passkey', back } : { kind: 'password' };
}

/** The step's fields, placed inside the decision form above its buttons. */
export function confirmBlock(step: ConfirmStep | undefined): SafeHtml {
  if (step === undefined) return html``;
  if (step.kind === 'password') {
    return html`<fieldset class="card confirm-it-is-you">
<legend>Confirm it is you</legend>
<p>Type your password, then choose Allow again.</p>
<label for="${FIELD}">Your password</label>
<input id="${FIELD}" name="${FIELD}" type="password" autocomplete="current-password" required>
</fieldset>`;
  }
  const href = `/app/security?return_to=${encodeURIComponent(step.back)}#confirm`;
  return html`<div class="card confirm-it-is-you">
<h2>Confirm it is you</h2>
<p><a href="${href}">Confirm with your passkey</a>, then come back here and choose Allow again.</p>
</div>`;
}

/**
 * Checks the password typed in the step before the approval: undefined when none was typed (the
 * approval then decides) or it was right (the session is now freshly signed in); else the
 * refusal in words.
 */
export async function passwordProblem(
  c: Context,
  web: WebContext,
  session: WebSession,
  form: Form,
): Promise<string | undefined> {
  const password = field(form, FIELD);
  if (password === undefined || password === '') return undefined;
  if (!(await signInAttempt(web, c)).allowed) return 'Too many attempts. Wait a few minutes and try again.';
  const confirmed = await confirmWithPassword(web.deps, session.record, password);
  return confirmed.ok ? undefined : 'The password is wrong. Type it again, then choose Allow.';
}
