import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../support/chromium.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import {
  CALLBACK,
  type CreatedRequest,
  exchange,
  requestConsent,
  signInOverHttp,
} from '../../support/web-session.ts';

// The consent page in a real browser (Debian's chromium via playwright-core): sign in, read what
// is asked in words, narrow, approve or reject, and come back to the client's redirect URI.

/** The text a person sees in the page's main part (rendered text, hence innerText). */
function shown(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
  return page.innerText('main');
}

/** Runs in the page: an element's computed border style. */
function borderStyle(e: unknown): string {
  const view = globalThis as unknown as { getComputedStyle(el: unknown): { borderStyle: string } };
  return view.getComputedStyle(e).borderStyle;
}

/** Runs in the page: how wide the page and the claims table are, against what they show. */
function widths(): { page: number; table: number; tableShown: number; rows: number } {
  type Box = { scrollWidth: number; clientWidth: number };
  const doc = (
    globalThis as unknown as {
      document: {
        scrollingElement: Box;
        querySelector(s: string): Box | null;
        querySelectorAll(s: string): { length: number };
      };
    }
  ).document;
  const table = doc.querySelector('table.claims');
  return {
    page: doc.scrollingElement.scrollWidth,
    table: table?.scrollWidth ?? -1,
    tableShown: table?.clientWidth ?? -1,
    rows: doc.querySelectorAll('table.claims tbody tr').length,
  };
}

const USER = { username: 'demo-browser', password: 'browser-password-1' };
const OTHER = { username: 'someone-else', password: 'other-password-1' };

describe('consent page in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let ctx: BrowserContext;

  before(async () => {
    p = await startTestProvider();
    const a = await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT });
    const b = await createSubject(p.deps, OTHER);
    assert.ok(a.ok && b.ok);
    browser = await launchChromium();
    ctx = browser.context;
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });
  beforeEach(() => ctx.clearCookies());

  /** A page whose visits to the client's callback are answered here and recorded. */
  async function clientPage(): Promise<{ page: Page; callbacks: string[] }> {
    const page = await ctx.newPage();
    const callbacks: string[] = [];
    await page.route('http://localhost:5173/**', (route) => {
      callbacks.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });
    return { page, callbacks };
  }

  async function signIn(page: Page, who: { username: string; password: string }) {
    await page.fill('#username', who.username);
    await page.fill('#password', who.password);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Sign in")')]);
  }

  async function decided(callbacks: string[], req: CreatedRequest): Promise<URL> {
    for (let i = 0; i < 100 && callbacks.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(callbacks.length, 1, 'the browser went to the client callback once');
    const url = new URL(callbacks[0]!);
    assert.equal(`${url.origin}${url.pathname}`, CALLBACK);
    assert.equal(url.searchParams.get('grant_request_id'), req.grant_request_id);
    return url;
  }

  it('sign in, read the request in words, untick a namespace, approve: the grant covers only what was kept', async () => {
    const req = await requestConsent(p);
    const { page, callbacks } = await clientPage();
    const first = await page.goto(req.consent_url);
    assert.equal(first?.status(), 200);
    assert.ok(await page.isVisible('form[action="/signin"]'), 'a sign-in form without a session');
    await signIn(page, USER);
    assert.equal(new URL(page.url()).pathname, `/consent/${req.grant_request_id}`);

    const text = await shown(page);
    assert.match(text, /Fragrance Demo App wants to use your preferences/);
    assert.match(text, /localhost:5173/);
    assert.match(text, /verified/);
    assert.match(text, /Recommend things to you/);
    assert.match(text, /Explain why something suits you/);
    assert.match(text, /General traits/);
    assert.match(text, /Fragrance preferences/);
    assert.match(text, /How much you like each family of scents/, 'keys described in plain words');
    assert.match(text, /Also elsewhere, except preferences brought over from other apps \(as asked\)/);
    assert.match(text, /It can suggest changes to your profile; nothing changes until you accept them/);
    assert.match(text, /\d{1,2} \w+ \d{4} \(in 30 days\)/, 'the expiry as a date');
    const stated = await page.locator('.badge.stated[data-provenance="user_stated"]').count();
    const guessed = await page.locator('.badge.guess[data-provenance="inferred"]').count();
    assert.ok(stated >= 2 && guessed >= 1, `stated ${stated}, inferred ${guessed}`);
    const statedStyle = await page.locator('.badge.stated[data-provenance]').first().evaluate(borderStyle);
    const guessStyle = await page.locator('.badge.guess[data-provenance]').first().evaluate(borderStyle);
    assert.notEqual(statedStyle, guessStyle, 'stated and inferred look different, not only in words');
    await page.screenshot({ path: '/tmp/consent.png', fullPage: true });

    const coreKeys = page.locator('fieldset.keys:has(input[name="namespace"][value="core"]) > ul.keys');
    assert.ok(await coreKeys.isVisible(), 'a ticked group shows its items');
    await page.uncheck('input[name="namespace"][value="core"]');
    // Its items go with it: none stays ticked on screen, and the page says none is shared.
    assert.equal(await coreKeys.isVisible(), false, 'an unticked group hides its items');
    assert.ok(
      await page
        .getByText('Not shared: none of these. Tick general traits to choose among them.')
        .isVisible(),
    );
    await page.click('button[value="approve"]');
    const back = await decided(callbacks, req);
    assert.equal(back.searchParams.get('decision'), 'approve');

    const tokens = await exchange(p, req);
    assert.equal(tokens.status, 200, tokens.text);
    const grants = await api(p.url, '/v1/consent/grants', { token: tokens.json.access_token });
    assert.equal(grants.status, 200, grants.text);
    const grant = (grants.json.grants ?? grants.json)[0] ?? grants.json;
    assert.deepEqual(grant.allowed_namespaces, ['fragrance']);
    const read = await api(p.url, '/v1/profile/query', { token: tokens.json.access_token, body: {} });
    assert.equal(read.status, 200, read.text);
    const namespaces = new Set((read.json.claims as { namespace: string }[]).map((c) => c.namespace));
    assert.deepEqual([...namespaces], ['fragrance']);
    await page.close();
  });

  it('reject: the browser returns with decision=reject and the exchange fails', async () => {
    const req = await requestConsent(p);
    const { page, callbacks } = await clientPage();
    await page.goto(req.consent_url);
    await signIn(page, USER);
    await page.click('button[value="reject"]');
    const back = await decided(callbacks, req);
    assert.equal(back.searchParams.get('decision'), 'reject');
    const tokens = await exchange(p, req);
    assert.equal(tokens.status, 400);
    assert.equal(tokens.json.error, 'invalid_grant');
    await page.close();
  });

  it('a back-channel client (no redirect URI): the decision ends on the provider page, in plain words', async () => {
    const registered = await registerClient(p.deps, { client_id: 'kiosk', name: 'Kiosk App' });
    assert.ok(registered.ok);
    const req = await requestConsent(p, { client_id: 'kiosk', redirect_uri: undefined });
    const page = await ctx.newPage();
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(p.url)) elsewhere.push(r.url());
    });
    await page.goto(req.consent_url);
    await signIn(page, USER);
    const asked = await shown(page);
    assert.match(asked, /Kiosk App wants to use your preferences/);
    assert.match(asked, /you will not be sent anywhere/);
    await Promise.all([
      page.waitForURL(`${p.url}/consent/${req.grant_request_id}/done`),
      page.click('button[value="approve"]'),
    ]);
    const done = await shown(page);
    assert.match(done, /You allowed Kiosk App/);
    assert.match(done, /you may close this page/);
    assert.doesNotMatch(done, /grant_request|redirect|token|\bOAuth\b/i, 'plain words, no protocol terms');
    assert.deepEqual(elsewhere, [], 'the browser went nowhere but the provider');
    await page.screenshot({ path: '/tmp/consent-done.png', fullPage: true });
    const tokens = await exchange(p, req, 'kiosk');
    assert.equal(tokens.status, 200, tokens.text);
    await page.close();
  });

  it('a wrong password shows an error and opens no session', async () => {
    const req = await requestConsent(p);
    const page = await ctx.newPage();
    await page.goto(req.consent_url);
    await signIn(page, { username: USER.username, password: 'not-the-password' });
    assert.match(await shown(page), /username or password is wrong/);
    const cookies = await ctx.cookies();
    assert.ok(!cookies.some((c) => c.name.includes('ppx_session')), 'no session cookie');
    assert.equal((await p.deps.store.getGrantRequest(req.grant_request_id))?.status, 'pending');
    await page.close();
  });

  it('narrowing the preview changes what the page says the app would see', async () => {
    const req = await requestConsent(p);
    const page = await ctx.newPage();
    await page.goto(req.consent_url);
    await signIn(page, USER);
    const before = await page.locator('table.claims tbody tr').count();
    await page.uncheck('input[name="namespace"][value="fragrance"]');
    await page.click('button[value="preview"]');
    const keys = await page
      .locator('table.claims tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key') ?? ''));
    assert.ok(keys.length > 0 && keys.length < before, `${keys.length} of ${before}`);
    assert.ok(
      keys.every((k) => !k.startsWith('fragrance.')),
      keys.join(),
    );
    assert.equal(await page.isChecked('input[name="namespace"][value="fragrance"]'), false, 'choices kept');
    await page.close();
  });

  it('another signed-in subject sees only that there is no such request', async () => {
    const req = await requestConsent(p);
    const page = await ctx.newPage();
    await page.goto(req.consent_url);
    await signIn(page, OTHER);
    const text = await shown(page);
    assert.match(text, /This request does not exist or has expired/);
    assert.doesNotMatch(text, /Fragrance Demo App|fragrance/i);
    const again = await page.reload();
    assert.equal(again?.status(), 404);
    await page.close();
  });

  it('at phone width (390 px) nothing scrolls sideways, the "What it would see" table included', async () => {
    const req = await requestConsent(p, {
      allowed_domains: ['fragrance', 'travel'],
      allowed_namespaces: ['core', 'fragrance', 'travel'],
    });
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(req.consent_url);
    await signIn(page, USER);
    await page.screenshot({ path: '/tmp/consent-390.png', fullPage: true });
    const w = await page.evaluate(widths);
    assert.ok(w.rows > 0, 'the table has rows to measure');
    assert.ok(w.page <= 390, `the page is ${w.page} px wide at 390`);
    assert.ok(w.table <= w.tableShown, `the table is ${w.table} px wide in ${w.tableShown}`);
    await page.close();
  });

  it('a page on another origin cannot frame the consent page', async () => {
    const req = await requestConsent(p);
    const { session } = await signInOverHttp(p.url, USER.username, USER.password);
    await ctx.addCookies([{ name: 'ppx_session', value: session, url: p.url }]);
    // The framing page is served by a real server on loopback: a page from a public origin, or
    // one fulfilled by page.route, is refused by Chromium's Local Network Access checks before
    // the consent page is even fetched, which would pass whatever our headers say. Another port
    // is another origin but the same site, so the session cookie goes along and an unprotected
    // consent page would render in the frame.
    const attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><iframe id="f" src="${req.consent_url}" onload="window.framed = true"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const page = await ctx.newPage();
    try {
      const { port } = attacker.address() as AddressInfo;
      const answered = page.waitForResponse((r) => r.url() === req.consent_url);
      const refused = page.waitForEvent('requestfailed', (r) => r.url() === req.consent_url);
      // Awaited last; when an assertion before it fails, closing the page rejects it unheard.
      refused.catch(() => undefined);
      await page.goto(`http://127.0.0.1:${port}/`);
      assert.equal((await answered).status(), 200, 'the provider was asked and answered the frame');
      // The iframe's load event fires once its navigation has ended, framed or refused.
      await page.waitForFunction(() => (globalThis as { framed?: boolean }).framed === true);
      const frame = await (await page.$('#f'))?.contentFrame();
      assert.ok(frame, 'the attacker page has its iframe');
      assert.equal(frame.url(), 'chrome-error://chromewebdata/', 'the frame holds the refusal page');
      assert.doesNotMatch(await frame.content(), /wants to use your preferences/);
      assert.equal((await refused).failure()?.errorText, 'net::ERR_BLOCKED_BY_RESPONSE');
    } finally {
      await page.close();
      attacker.close();
    }
  });
});
