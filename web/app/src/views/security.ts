import type { SignInMethods } from '../../../../src/operations/accounts/passkeys.ts';
import { confirmStep } from '../confirm-step.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { PasskeyProblem, registerPasskey, usePasskey } from '../passkey-ceremony.ts';
import { dayWords, relativeWords } from '../words.ts';

// "Sign-in and security" (docs/passkeys.md): the person's passkeys (add, list, remove behind the
// confirmation step), the switch for password sign-in, and "Confirm it is you", the fresh sign-in
// that allowing access to sensitive preferences asks for (a consent page links here with
// `?return_to=` and comes back). Every request is a same-origin JSON call with the CSRF token.

export const securityView: View = {
  path: '/app/security',
  title: 'Sign-in and security',
  label: 'Security',
  sections: (ctx) => [passkeysSection(ctx), passwordSection(ctx), confirmSection(ctx)],
};

const shown: { methods?: SignInMethods; error?: string; removing?: string; confirmed?: boolean } = {};
let loading = false;

async function call(ctx: AppContext, path: string, body?: unknown): Promise<SignInMethods> {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': ctx.csrf },
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const value = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const words = typeof value['error_description'] === 'string' ? value['error_description'] : '';
    throw new PasskeyProblem(sentence(words || 'That did not work. Try again.'));
  }
  return value as unknown as SignInMethods;
}

function sentence(s: string): string {
  const t = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

function load(ctx: AppContext): void {
  if (loading) return;
  loading = true;
  call(ctx, '/app/api/sign-in-methods')
    .then((m) => {
      shown.methods = m;
      delete shown.error;
    })
    .catch(() => {
      shown.error = 'Your sign-in methods could not be shown. Reload the page to try again.';
    })
    .finally(() => {
      loading = false;
      ctx.redraw();
    });
}

/** Runs a change; the answer is the methods as they now are, or the refusal in words. */
async function change(ctx: AppContext, run: () => Promise<SignInMethods>, done: string): Promise<boolean> {
  try {
    shown.methods = await run();
    ctx.notify(done);
    return true;
  } catch (e) {
    ctx.notify(e instanceof PasskeyProblem ? e.message : 'Something went wrong. Try again.', 'error');
    return false;
  } finally {
    ctx.redraw();
  }
}

function passkeysSection(ctx: AppContext): Section {
  if (shown.methods === undefined && shown.error === undefined) load(ctx);
  const m = shown.methods;
  return {
    id: 'passkeys',
    key: JSON.stringify([m?.passkeys, m?.password_sign_in, shown.error ?? '', shown.removing ?? '']),
    build: () => {
      const section = h(
        'section',
        { id: 'passkeys', 'aria-labelledby': 'passkeys-h' },
        h('h2', { id: 'passkeys-h', tabindex: '-1' }, 'Your passkeys'),
        h(
          'p',
          {},
          'A passkey lets you sign in with your fingerprint, face or screen lock instead of a password. It stays on your device or in your password manager.',
        ),
      );
      if (shown.error !== undefined) {
        section.append(h('p', { class: 'error', role: 'alert' }, shown.error));
        return section;
      }
      if (m === undefined) {
        section.append(h('p', { class: 'muted' }, 'Loading…'));
        return section;
      }
      if (m.passkeys.length === 0) section.append(h('p', { class: 'empty' }, 'You have no passkey yet.'));
      else section.append(h('ul', { class: 'passkeys' }, ...m.passkeys.map((p) => passkeyItem(ctx, m, p))));
      section.append(addForm(ctx));
      return section;
    },
  };
}

function passkeyItem(ctx: AppContext, m: SignInMethods, p: SignInMethods['passkeys'][number]): HTMLElement {
  const now = ctx.now();
  const last = p.last_used_at
    ? `Last used ${relativeWords(p.last_used_at, now)} (${dayWords(p.last_used_at)})`
    : 'Not used to sign in yet';
  const item = h(
    'li',
    { class: 'passkey', 'data-passkey-id': p.id },
    h('p', { class: 'passkey-name' }, p.name),
    h('p', { class: 'hint' }, `Added ${dayWords(p.created_at)}. ${last}.`),
  );
  const onlyWay = !m.password_sign_in && m.passkeys.length === 1;
  if (onlyWay) {
    item.append(
      h(
        'p',
        { class: 'hint' },
        'This is your only way to sign in, so it cannot be removed while password sign-in is off. Add another passkey or turn password sign-in on first.',
      ),
    );
    return item;
  }
  if (shown.removing === p.id) {
    item.append(
      confirmStep({
        question: `Remove the passkey “${p.name}”? You will not be able to sign in with it here any more.`,
        yes: 'Remove it',
        no: 'Keep it',
        onYes: async () => {
          const ok = await change(
            ctx,
            () => call(ctx, '/app/api/passkeys/remove', { id: p.id }),
            `The passkey “${p.name}” was removed.`,
          );
          if (ok) delete shown.removing;
          ctx.redraw();
          if (ok) document.getElementById('passkeys-h')?.focus();
        },
        onNo: () => {
          delete shown.removing;
          ctx.redraw();
          document.getElementById(`remove-${p.id}`)?.focus();
        },
      }),
    );
    return item;
  }
  const remove = h(
    'button',
    { type: 'button', id: `remove-${p.id}`, 'aria-label': `Remove the passkey “${p.name}”` },
    'Remove',
  );
  remove.addEventListener('click', () => {
    shown.removing = p.id;
    ctx.redraw();
  });
  item.append(h('div', { class: 'actions' }, remove));
  return item;
}

function addForm(ctx: AppContext): HTMLElement {
  const name = h('input', {
    id: 'passkey-name',
    name: 'name',
    type: 'text',
    maxlength: '60',
    autocomplete: 'off',
    placeholder: 'For example: My phone',
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Add a passkey');
  const form = h(
    'form',
    { class: 'add-passkey', 'aria-labelledby': 'add-passkey-h' },
    h('h3', { id: 'add-passkey-h' }, 'Add a passkey'),
    h('label', { for: 'passkey-name' }, 'A name, to tell your passkeys apart'),
    name,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    const headers = { 'X-CSRF-Token': ctx.csrf };
    const added = await change(
      ctx,
      async () =>
        (await registerPasskey(
          '/app/api/passkeys/options',
          '/app/api/passkeys',
          { name: name.value },
          headers,
        )) as unknown as SignInMethods,
      'Your passkey was added. You can now sign in with it.',
    );
    button.disabled = false;
    if (added) name.value = '';
  });
  return form;
}

function passwordSection(ctx: AppContext): Section {
  const m = shown.methods;
  return {
    id: 'password',
    key: JSON.stringify([m?.password_sign_in, m?.has_password, m?.passkeys.length]),
    build: () => {
      const section = h(
        'section',
        { id: 'password', 'aria-labelledby': 'password-h' },
        h('h2', { id: 'password-h', tabindex: '-1' }, 'Password'),
      );
      if (m === undefined) return section;
      if (!m.has_password) {
        section.append(h('p', {}, 'This account has no password: you sign in with your passkeys only.'));
        return section;
      }
      const box = h('input', {
        id: 'password-sign-in',
        type: 'checkbox',
        role: 'switch',
        'aria-describedby': 'password-sign-in-hint',
        checked: m.password_sign_in,
        disabled: m.password_sign_in && m.passkeys.length === 0,
      });
      const hint = !m.password_sign_in
        ? 'Password sign-in is off: only your passkeys sign you in. Turn it on to use your password again.'
        : m.passkeys.length === 0
          ? 'You can turn this off once you have added a passkey, so that you always have a way to sign in.'
          : 'Turn this off to sign in with your passkeys only: then nobody can sign in with your password, even if they know it.';
      box.addEventListener('change', async () => {
        const on = box.checked;
        box.disabled = true;
        const ok = await change(
          ctx,
          () => call(ctx, '/app/api/password-sign-in', { on }),
          on
            ? 'You can sign in with your password again.'
            : 'Password sign-in is off. Sign in with a passkey.',
        );
        if (!ok) box.checked = !on;
        box.disabled = false;
        document.getElementById('password-sign-in')?.focus();
      });
      section.append(
        h(
          'div',
          { class: 'switch' },
          box,
          h('label', { for: 'password-sign-in' }, 'Sign in with a password'),
        ),
        h('p', { class: 'hint', id: 'password-sign-in-hint' }, hint),
      );
      return section;
    },
  };
}

/** Where a consent page asked to come back to after "Confirm it is you" (this origin's paths only). */
function returnTo(): string | undefined {
  const to = new URLSearchParams(location.search).get('return_to');
  return to?.startsWith('/') && !to.startsWith('//') && !to.startsWith('/\\') ? to : undefined;
}

function confirmSection(ctx: AppContext): Section {
  const m = shown.methods;
  const back = returnTo();
  return {
    id: 'confirm',
    key: JSON.stringify([
      m?.passkeys.length ?? -1,
      m?.password_sign_in,
      shown.confirmed ?? false,
      back ?? '',
    ]),
    build: () => {
      const section = h(
        'section',
        { id: 'confirm', 'aria-labelledby': 'confirm-h' },
        h('h2', { id: 'confirm-h', tabindex: '-1' }, 'Confirm it is you'),
        h(
          'p',
          {},
          'Before you let an app see preferences that are sensitive, confirm it is you. It counts for 5 minutes.',
        ),
      );
      if (m === undefined) return section;
      if (shown.confirmed) {
        section.append(h('p', { class: 'notice', role: 'status' }, 'Confirmed. You can allow it now.'));
        if (back)
          section.append(h('p', {}, h('a', { href: back, id: 'confirm-back' }, 'Back to the request')));
        return section;
      }
      section.append(m.passkeys.length > 0 ? passkeyConfirm(ctx) : passwordConfirm(ctx, m));
      return section;
    },
  };
}

function confirmed(ctx: AppContext): void {
  shown.confirmed = true;
  ctx.redraw();
  (document.getElementById('confirm-back') ?? document.getElementById('confirm-h'))?.focus();
}

function passkeyConfirm(ctx: AppContext): HTMLElement {
  const button = h(
    'button',
    { type: 'button', class: 'primary', id: 'confirm-passkey' },
    'Confirm with your passkey',
  );
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await usePasskey('/app/api/confirm/options', '/app/api/confirm', {}, { 'X-CSRF-Token': ctx.csrf });
      confirmed(ctx);
    } catch (e) {
      ctx.notify(e instanceof PasskeyProblem ? e.message : 'Something went wrong. Try again.', 'error');
      button.disabled = false;
    }
  });
  return h('div', { class: 'actions' }, button);
}

function passwordConfirm(ctx: AppContext, m: SignInMethods): HTMLElement {
  if (!m.password_sign_in) return h('p', {}, 'Add a passkey to confirm it is you.');
  const input = h('input', {
    id: 'confirm-password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Confirm');
  const form = h(
    'form',
    { class: 'confirm-password' },
    h('label', { for: 'confirm-password' }, 'Your password'),
    input,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      await call(ctx, '/app/api/confirm', { password: input.value });
      confirmed(ctx);
    } catch (err) {
      ctx.notify(err instanceof PasskeyProblem ? err.message : 'Something went wrong. Try again.', 'error');
      input.value = '';
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
