import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CDPSession, Page } from 'playwright-core';
import { setSensitiveKeys } from '../../../../src/operations/writeback/sensitive-keys.ts';
import { seriousViolations } from '../../../support/axe.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, live, noticeSays, PERSON, shown } from '../../../support/web-app.ts';
import { requestConsent } from '../../../support/web-session.ts';
import { virtualAuthenticator } from '../../../support/webauthn.ts';

// The web app's "Sign-in and security" view (docs/passkeys.md) in Chromium with its virtual
// authenticator: add a passkey, see it listed, turn password sign-in off and see why the last
// passkey stays, remove one behind the confirmation step; axe-core clean at 1280×800 and 390×844
// without sideways scrolling; and the fresh sign-in a sensitive approval asks for, on the consent
// page: refused in words, confirmed with the passkey, then allowed.

function sideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const d = (
      globalThis as unknown as {
        document: { scrollingElement: { scrollWidth: number; clientWidth: number } };
      }
    ).document.scrollingElement;
    return d.scrollWidth > d.clientWidth;
  });
}

describe('the Sign-in and security view', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  const base = () => p.deps.provider.baseUrl.replace(/\/$/, '');

  before(async () => {
    // Passkeys need a host name for their RP ID: the provider is localhost.
    p = await startTestProvider({ env: { PPX_HOST: 'localhost' } });
    await addPerson(p);
    browser = await launchChromium({ bypassCSP: true });
    page = await browser.context.newPage();
    page.on('pageerror', (e) => {
      throw new Error(`the page failed: ${e.message}`);
    });
    ({ cdp, id: authenticatorId } = await virtualAuthenticator(page));
    await page.goto(`${base()}/app/security`);
    await page.fill('#username', PERSON.username);
    await page.fill('#password', PERSON.password);
    await page.click('button[type=submit]');
    await page.waitForURL((url) => url.pathname === '/app/security');
    await live(page);
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('adds passkeys, lists them, keeps the last while password sign-in is off, removes one after confirming', async () => {
    await page.waitForSelector('#passkeys .empty');
    assert.match(await shown(page), /You have no passkey yet/);
    // Without a passkey, password sign-in cannot be turned off.
    assert.equal(await page.isDisabled('#password-sign-in'), true);
    assert.match(await shown(page), /turn this off once you have added a passkey/);

    await page.fill('#passkey-name', 'My phone');
    await page.press('#passkey-name', 'Enter');
    await noticeSays(page, /Your passkey was added/);
    await page.waitForSelector('li.passkey');
    const listed = await shown(page, '#passkeys');
    assert.match(listed, /My phone/);
    assert.match(listed, /Added \d+ \w+ \d{4}\. Not used to sign in yet\./);
    const [stored] = await p.store.listPasskeys(p.subjectId);
    assert.equal(stored?.name, 'My phone');

    // Password sign-in off, by keyboard: the only passkey says why it cannot be removed.
    await page.focus('#password-sign-in');
    await page.keyboard.press('Space');
    await noticeSays(page, /Password sign-in is off/);
    assert.equal(await page.isChecked('#password-sign-in'), false);
    assert.equal(await page.locator('li.passkey button', { hasText: 'Remove' }).count(), 0);
    assert.match(await shown(page, '#passkeys'), /your only way to sign in, so it cannot be removed/);

    // A second passkey (another device: the authenticator forgets the first, as it would not make
    // a second one for the same account): both can now be removed; remove the first, behind the
    // confirmation step.
    await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    await page.fill('#passkey-name', 'Laptop');
    await page.click('.add-passkey button[type=submit]');
    await page.locator('li.passkey', { hasText: 'Laptop' }).waitFor();
    const first = page.locator('li.passkey', { hasText: 'My phone' });
    await first.locator('button', { hasText: 'Remove' }).click();
    await first.locator('.confirm button', { hasText: 'Keep it' }).click();
    assert.equal((await p.store.listPasskeys(p.subjectId)).length, 2, 'keeping removes nothing');
    await first.locator('button', { hasText: 'Remove' }).click();
    assert.match(await shown(page, '#passkeys'), /Remove the passkey “My phone”\?/);
    await first.locator('.confirm button', { hasText: 'Remove it' }).click();
    await noticeSays(page, /The passkey “My phone” was removed/);
    await page.locator('li.passkey', { hasText: 'My phone' }).waitFor({ state: 'detached' });
    assert.deepEqual(
      (await p.store.listPasskeys(p.subjectId)).map((k) => k.name),
      ['Laptop'],
    );

    // Back on: the password works again.
    await page.click('#password-sign-in');
    await noticeSays(page, /sign in with your password again/);
    assert.equal(await page.isChecked('#password-sign-in'), true);
  });

  it('is axe-core clean at 1280×800 and at 390×844, without sideways scrolling', async () => {
    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      await page.goto(`${base()}/app/security`);
      await page.waitForSelector('li.passkey');
      assert.deepEqual(await seriousViolations(page), [], `${size.width}×${size.height}`);
      assert.equal(await sideways(page), false, `no sideways scrolling at ${size.width}px`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('asks for a fresh sign-in before allowing a sensitive preference, and allows it after one', async () => {
    const me = { kind: 'subject' as const, subjectId: p.subjectId };
    assert.ok((await setSensitiveKeys(p.deps, me, { sensitive_keys: ['novelty_tolerance'] })).ok);
    const asked = await requestConsent(p);
    // A password sign-in by someone who has a passkey is not a fresh sign-in.
    await page.context().clearCookies();
    await page.goto(`${base()}/consent/${asked.grant_request_id}`);
    await page.fill('#username', PERSON.username);
    await page.fill('#password', PERSON.password);
    await page.click('form[action="/signin"] button[type=submit]');
    await page.waitForSelector('button[value=approve]');
    await page.click('button[value=approve]');
    assert.match(await shown(page, 'body'), /Confirm it is you: sign in again with your passkey or password/);
    assert.equal((await p.store.getGrantRequest(asked.grant_request_id))?.status, 'pending');
    await page.click('a:text("Confirm with your passkey")');
    await page.waitForURL((url) => url.pathname === '/app/security');
    await page.click('#confirm-passkey');
    await page.click('#confirm-back');
    await page.waitForURL((url) => url.pathname === `/consent/${asked.grant_request_id}`);
    // The app's callback is not running: answer it here.
    await page.route('http://localhost:5173/**', (route) => route.fulfill({ body: 'back at the app' }));
    await page.click('button[value=approve]');
    await page.waitForURL((url) => url.pathname === '/callback');
    assert.equal((await p.store.getGrantRequest(asked.grant_request_id))?.status, 'approved');
  });
});
