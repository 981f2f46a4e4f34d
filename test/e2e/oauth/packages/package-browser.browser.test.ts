import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createSubject } from '../../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../../src/operations/seed/demo-profile.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import {
  FRAGRANCE,
  outcomePpxGrants,
  packageRequest,
  subjectGrants,
  TRAVEL,
} from '../../../support/grant-packages.ts';
import { pkce, postForm, register } from '../../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { CALLBACK } from '../../../support/web-session.ts';

// A grant package in a real browser (Debian's chromium via playwright-core): the client sends
// the person to authorize with two authorization_details; they sign in, read both grants on one
// page, narrow the first, decline the second, confirm once and come back with one code.

const USER = { username: 'package-browser', password: 'browser-password-2' };

describe('grant package page in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let client: string;

  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    const registered = await register(p, { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' });
    assert.equal(registered.status, 201);
    client = registered.json.client_id;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  function shown(page: Page): Promise<string> {
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
    return page.innerText('main');
  }

  it('sign in, decide each grant on one page, confirm once: one code for what was allowed', async () => {
    const page = await browser.context.newPage();
    const callbacks: string[] = [];
    await page.route('http://localhost:5173/**', (route) => {
      callbacks.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });
    const { verifier, challenge } = pkce();
    await page.goto(packageRequest(p, client, challenge, [FRAGRANCE, TRAVEL], { redirect_uri: CALLBACK }));
    await page.fill('#username', USER.username);
    await page.fill('#password', USER.password);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Sign in")')]);
    assert.match(new URL(page.url()).pathname, /^\/consent\/gr_/);

    const text = await shown(page);
    assert.match(text, /asks for 2 separate grants; decide each one/);
    assert.match(text, /Grant 1 of 2/);
    assert.match(text, /Grant 2 of 2/);
    assert.match(text, /Fragrance preferences/);
    assert.match(text, /Travel preferences/);
    assert.equal(await page.locator('section.element').count(), 2);
    assert.ok(await page.isChecked('input[name="e0.choice"][value="approve"]'), 'allow is the default');
    assert.ok(await page.isChecked('input[name="e1.choice"][value="approve"]'));
    const stated = await page
      .locator('section.element')
      .first()
      .locator('.badge.stated[data-provenance]')
      .count();
    assert.ok(stated >= 1, 'stated claims are marked within the element');

    await page.uncheck('input[name="e0.namespace"][value="fragrance"]');
    await page.check('input[name="e1.choice"][value="reject"]');
    await page.screenshot({ path: '/tmp/package-consent.png', fullPage: true });
    await page.click('button[value="decide"]');
    for (let i = 0; i < 100 && callbacks.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(callbacks.length, 1, 'the browser went to the client callback once');
    const back = new URL(callbacks[0]!);
    assert.equal(`${back.origin}${back.pathname}`, CALLBACK);
    const code = back.searchParams.get('code');
    assert.ok(code, back.href);

    const tokens = await postForm(`${p.url}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
      client_id: client,
    });
    assert.equal(tokens.status, 200, tokens.text);
    const [fragrance, travel] = tokens.json.pdpp_detail_outcomes as {
      detail_id: string;
      grant_ids: string[];
    }[];
    assert.equal(fragrance?.detail_id, 'fragrance-reco');
    assert.equal(fragrance?.grant_ids.length, 1);
    assert.deepEqual(travel, { detail_id: 'travel-reco', grant_ids: [] });
    const grant = (await subjectGrants(p)).get(outcomePpxGrants(tokens.json)[0]!);
    assert.deepEqual(grant?.allowed_namespaces, ['core']);
    await page.close();
  });
});
