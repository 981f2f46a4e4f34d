import { PasskeyProblem, registerPasskey, usePasskey } from './passkey-ceremony.ts';

// The one script of the server-rendered pages that offer passkeys (sign-in, sign-up, a one-time
// link; docs/passkeys.md): a button `data-passkey="signin|signup|setup"` inside a form whose hidden
// fields (csrf, return_to, token) and inputs (username, name) it sends. Loaded as a module from the
// app bundle under the pages' CSP (script-src 'self'); no inline script.

const PATHS = {
  signin: ['/passkeys/signin/options', '/passkeys/signin'],
  signup: ['/passkeys/signup/options', '/passkeys/signup'],
  setup: ['/passkeys/setup/options', '/passkeys/setup'],
} as const;

function fieldsOf(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['csrf', 'return_to', 'token', 'username', 'name']) {
    const input = form.elements.namedItem(name);
    if (input instanceof HTMLInputElement) out[name] = input.value;
  }
  return out;
}

function say(form: HTMLFormElement, words: string): void {
  let box = form.parentElement?.querySelector<HTMLElement>('[data-passkey-error]');
  if (!box) {
    box = document.createElement('p');
    box.className = 'error';
    box.setAttribute('role', 'alert');
    box.dataset['passkeyError'] = '';
    form.before(box);
  }
  box.textContent = words;
}

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-passkey]')) {
  const kind = button.dataset['passkey'] as keyof typeof PATHS;
  const form = button.form;
  if (!(kind in PATHS) || !form) continue;
  button.hidden = false;
  button.addEventListener('click', async (event) => {
    event.preventDefault();
    if (kind === 'signup') {
      const username = form.elements.namedItem('username');
      if (username instanceof HTMLInputElement && !username.reportValidity()) return;
    }
    button.disabled = true;
    const [optionsUrl, verifyUrl] = PATHS[kind];
    try {
      const ceremony = kind === 'signin' ? usePasskey : registerPasskey;
      const done = await ceremony(optionsUrl, verifyUrl, fieldsOf(form));
      location.assign(typeof done['redirect_to'] === 'string' ? done['redirect_to'] : '/app');
    } catch (e) {
      say(form, e instanceof PasskeyProblem ? e.message : 'Something went wrong. Try again.');
      button.disabled = false;
    }
  });
}
