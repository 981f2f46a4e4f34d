import type { Hono } from 'hono';
import { setupLinkIsLive } from '../../operations/accounts/passkeys.ts';
import { html } from './escape.ts';
import { page } from './layout.ts';
import { providerName, send, type WebContext } from './respond.ts';
import { preSessionCsrf } from './session.ts';
import { messagePage } from './signin.ts';
import { passkeyPageHeaders } from './signin-routes.ts';

// The one-time link page (`ppx subject add --no-password`; docs/passkeys.md): the person opens it
// and registers the first passkey of an account that has no password. The link is used up by that
// registration (operations/accounts/passkeys.ts), not by opening the page.

export function registerPasskeyPages(app: Hono, web: WebContext): void {
  app.get('/passkey-setup/:token', async (c) => {
    const token = c.req.param('token');
    const script = await web.passkeyScript();
    if (!(await setupLinkIsLive(web.deps, token))) {
      const words = 'This link has expired or was already used. Ask whoever runs this service for a new one.';
      return send(c, messagePage(providerName(web), 'This link no longer works', words), 404);
    }
    if (!script) {
      const words = 'Passkeys cannot be added on this server yet: its web app has not been installed.';
      return send(c, messagePage(providerName(web), 'Not available yet', words), 404);
    }
    const csrf = preSessionCsrf(c, web.plan);
    const body = html`<section class="card">
<h1>Add your passkey</h1>
<p>Your account signs in with a passkey instead of a password. Your device keeps it, unlocked by your fingerprint, face or screen lock.</p>
<p class="hint">This link works once, for 24 hours from when it was made.</p>
<form method="post" action="/passkey-setup">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="token" value="${token}">
<input type="hidden" name="return_to" value="/app">
<div class="field"><label for="name">A name for this passkey</label>
<input type="text" id="name" name="name" maxlength="60" value="My passkey"></div>
<div class="actions"><button type="button" class="primary" data-passkey="setup" hidden>Add a passkey</button></div>
</form>
</section>`;
    return send(c, page('Add your passkey', body, providerName(web), script), 200, [], passkeyPageHeaders);
  });
}
