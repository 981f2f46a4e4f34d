import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { sha256 } from '../../../src/auth/secrets.ts';
import { createPasskeyAccount } from '../../../src/operations/accounts/passkey-accounts.ts';
import { verifyAuthentication } from '../../../src/operations/accounts/passkeys.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../support/chromium.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import { type VirtualAuthenticator, virtualAuthenticator } from '../../support/webauthn.ts';

// Passkeys in Chromium with its virtual authenticator (DevTools WebAuthn domain; docs/passkeys.md):
// sign up with a passkey only, sign out and in again with it, a copied passkey whose counter went
// backwards refused, an answer checked against another origin refused, the one-time link of
// `ppx subject add --no-password`, and password-off and removal over the web app's requests.

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  privateKey: string;
  userHandle: string;
  signCount: number;
}

async function credentials(a: VirtualAuthenticator): Promise<VirtualCredential[]> {
  const r = await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.id });
  return r.credentials as VirtualCredential[];
}

function shown(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
  return page.innerText('main');
}

describe('passkeys in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };
  // The provider's own origin (localhost), which passkeys belong to; p.url is its listening address.
  const base = () => p.deps.provider.baseUrl.replace(/\/$/, '');

  before(async () => {
    // WebAuthn needs a domain for its RP ID (an IP address is none): the provider is localhost.
    p = await startTestProvider({ env: { PPX_HOST: 'localhost', PPX_ENABLE_SIGNUP: '1' } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('signs up with a passkey only, signs in with it, and refuses a copy whose counter went back', async () => {
    const page = await browser.context.newPage();
    const a = await virtualAuthenticator(page);
    await page.goto(`${base()}/signup`);
    await page.fill('#passkey-username', 'passkey-only');
    await page.click('button[data-passkey="signup"]');
    await page.waitForURL(/\/app$/);
    const subject = await p.store.getSubjectByUsername('passkey-only');
    assert.equal(subject?.password_hash, '', 'no password was stored');
    const [stored] = await p.store.listPasskeys(subject!.subject_id);
    assert.ok(stored, 'the passkey is stored');
    const [made] = await credentials(a);
    assert.equal(Buffer.from(made?.credentialId ?? '', 'base64').toString('base64url'), stored.credential_id);
    assert.equal(made?.rpId, 'localhost');

    // Sign out (a new browser context has no cookie), then sign in with the passkey.
    await page.context().clearCookies();
    const before = (await credentials(a))[0]!;
    await page.goto(`${base()}/signin`);
    await page.click('button[data-passkey="signin"]');
    await page.waitForURL(/\/app$/);
    const used = await p.store.getPasskey(stored.credential_id);
    assert.ok(used?.last_used_at, 'last used is recorded');
    assert.ok((used?.counter ?? 0) > before.signCount, 'the counter moved forward');

    // A copy of the passkey as it was before that sign-in: its counter is behind the stored one.
    await page.context().clearCookies();
    await a.cdp.send('WebAuthn.removeCredential', {
      authenticatorId: a.id,
      credentialId: before.credentialId,
    });
    await a.cdp.send('WebAuthn.addCredential', { authenticatorId: a.id, credential: before });
    await page.goto(`${base()}/signin`);
    await page.click('button[data-passkey="signin"]');
    await page.waitForSelector('[data-passkey-error]');
    assert.match(await shown(page), /use counter went backwards/);
    assert.equal((await p.store.getPasskey(stored.credential_id))?.counter, used?.counter, 'nothing moved');
    assert.equal(new URL(page.url()).pathname, '/signin');
    await page.close();
  });

  it('refuses an answer checked against another origin, and accepts it against its own', async () => {
    const page = await browser.context.newPage();
    await virtualAuthenticator(page);
    await page.context().clearCookies();
    await page.goto(`${base()}/signup`);
    await page.fill('#passkey-username', 'origin-check');
    await page.click('button[data-passkey="signup"]');
    await page.waitForURL(/\/app$/);
    await page.context().clearCookies();
    // Hold the browser's signed answer back from the provider, to verify it here twice.
    let answer: { credential: string; csrf: string } | undefined;
    await page.route('**/passkeys/signin', async (route) => {
      answer = JSON.parse(route.request().postData() ?? '{}');
      await route.abort();
    });
    await page.goto(`${base()}/signin`);
    await page.click('button[data-passkey="signin"]');
    await page.waitForSelector('[data-passkey-error]');
    assert.ok(answer, 'the browser answered');
    const binding = sha256(`pre-session:${answer.csrf}`);
    const response = JSON.parse(answer.credential);
    const elsewhere = { ...p.deps, provider: { ...p.deps.provider, baseUrl: 'http://example.test:8080' } };
    // The challenge is single use: the refused attempt uses it up, so keep its ticket to put back.
    const challenge = JSON.parse(
      Buffer.from(response.response.clientDataJSON, 'base64url').toString(),
    ).challenge;
    const ticket = await p.store.getPasskeyTicket(
      sha256(challenge),
      'authentication',
      new Date().toISOString(),
    );
    assert.ok(ticket);
    const refused = await verifyAuthentication(elsewhere, { response, binding });
    assert.equal(refused.ok, false);
    assert.equal(refused.ok ? '' : refused.error.code, 'access_denied');
    await p.store.putPasskeyTicket(ticket);
    const accepted = await verifyAuthentication(p.deps, { response, binding });
    assert.equal(accepted.ok, true, accepted.ok ? '' : accepted.error.description);
    await page.close();
  });

  it('registers the first passkey at a one-time link, which then works no more', async () => {
    const made = await createPasskeyAccount(p.deps, { username: 'link-person' });
    assert.ok(made.ok);
    const link = new URL(made.value.link);
    const page = await browser.context.newPage();
    await virtualAuthenticator(page);
    await page.context().clearCookies();
    await page.goto(`${base()}${link.pathname}`);
    await page.fill('#name', 'Work laptop');
    await page.click('button[data-passkey="setup"]');
    await page.waitForURL(/\/app$/);
    const [key] = await p.store.listPasskeys(made.value.subject_id);
    assert.equal(key?.name, 'Work laptop');
    const again = await page.goto(`${base()}${link.pathname}`);
    assert.equal(again?.status(), 404);
    assert.match(await shown(page), /expired or was already used/);
    await page.close();
  });

  it('turns password sign-in off only with a passkey, and keeps the last passkey while it is off', async () => {
    const page = await browser.context.newPage();
    await virtualAuthenticator(page);
    await page.context().clearCookies();
    // A password account: sign up with a password, then add a passkey from the web app's requests.
    await page.goto(`${base()}/signup`);
    await page.fill('#username', 'both-ways');
    await page.fill('#password', 'both-ways-password');
    await page.fill('#password_again', 'both-ways-password');
    await page.click('form[action="/signup"] button[type=submit]');
    await page.waitForURL(/\/app/);
    const csrf = await page.getAttribute('meta[name="ppx-csrf"]', 'content');
    assert.ok(csrf);
    const call = (path: string, body: unknown) =>
      page.evaluate(
        async ([path, body, csrf]) => {
          const r = await fetch(path, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
            body: JSON.stringify(body),
          });
          // biome-ignore lint/suspicious/noExplicitAny: each call's answer has a shape of its own
          return { status: r.status, body: (await r.json()) as any };
        },
        [path, body, csrf] as const,
      );
    const off = await call('/app/api/password-sign-in', { on: false });
    assert.equal(off.status, 409);
    assert.match(off.body.error_description, /add a passkey before/);
    const subject = await p.store.getSubjectByUsername('both-ways');
    // Register through the same calls the web app makes (the bundle's passkey-ceremony.ts).
    const options = await call('/app/api/passkeys/options', {});
    assert.equal(options.status, 200);
    const added = await page.evaluate(async (optionsJSON) => {
      const toBytes = (s: string) =>
        Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const o = optionsJSON as {
        challenge: string;
        user: { id: string; name: string; displayName: string };
        rp: { id: string; name: string };
        pubKeyCredParams: { type: 'public-key'; alg: number }[];
        authenticatorSelection: unknown;
      };
      // biome-ignore lint/suspicious/noExplicitAny: the test's types have no DOM
      const nav = (globalThis as any).navigator;
      const cred = (await nav.credentials.create({
        publicKey: {
          challenge: toBytes(o.challenge),
          rp: o.rp,
          user: { ...o.user, id: toBytes(o.user.id) },
          pubKeyCredParams: o.pubKeyCredParams,
          authenticatorSelection: o.authenticatorSelection,
        },
      })) as { toJSON(): unknown };
      return JSON.stringify(cred.toJSON());
    }, options.body);
    const stored = await call('/app/api/passkeys', { credential: added, name: 'Phone' });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    assert.equal(stored.body.passkeys.length, 1);
    const turnedOff = await call('/app/api/password-sign-in', { on: false });
    assert.equal(turnedOff.status, 200);
    assert.equal(turnedOff.body.password_sign_in, false);
    const last = await call('/app/api/passkeys/remove', { id: stored.body.passkeys[0].id });
    assert.equal(last.status, 409);
    assert.match(last.body.error_description, /only way to sign in/);

    // Back on, the passkey can go (removal), and then password sign-in cannot be turned off.
    const on = await call('/app/api/password-sign-in', { on: true });
    assert.equal(on.body.password_sign_in, true);
    const removed = await call('/app/api/passkeys/remove', { id: stored.body.passkeys[0].id });
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body.passkeys, []);
    assert.deepEqual(await p.store.listPasskeys(subject!.subject_id), []);

    // With password sign-in off, the right password is refused in words.
    await p.store.putSetting(`password_off:${subject!.subject_id}`, new Date().toISOString());
    await page.context().clearCookies();
    await page.goto(`${base()}/signin`);
    await page.fill('#username', 'both-ways');
    await page.fill('#password', 'both-ways-password');
    await page.click('form[action="/signin"] button[type=submit]');
    assert.match(await shown(page), /Password sign-in is turned off/);
    await page.close();
  });
});
