import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { axeViolations, violationLines } from '../../support/axe.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../support/chromium.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import { requestConsent } from '../../support/web-session.ts';

// axe-core (WCAG 2.1 A and AA rules) on the pages a person sees: sign-in, the consent page, a
// request that does not exist; at desktop and at phone width. axe is injected by the test (the
// browser context bypasses the pages' CSP for that alone); the pages run no script of their own.

const USER = { username: 'demo-axe', password: 'axe-password-1' };

describe('the pages pass axe-core (WCAG 2.1 AA)', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };

  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    browser = await launchChromium({ bypassCSP: true });
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  for (const width of [900, 390]) {
    it(`sign-in, consent and not-found pages at ${width} px`, async () => {
      await browser.context.clearCookies();
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: 844 });
      try {
        const req = await requestConsent(p);
        await page.goto(req.consent_url);
        assert.ok(await page.isVisible('#username'), 'the sign-in page');
        const signIn = await axeViolations(page);
        assert.deepEqual(signIn, [], violationLines(signIn).join('\n'));

        await page.fill('#username', USER.username);
        await page.fill('#password', USER.password);
        await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Sign in")')]);
        assert.equal(new URL(page.url()).pathname, `/consent/${req.grant_request_id}`);
        const consent = await axeViolations(page);
        assert.deepEqual(consent, [], violationLines(consent).join('\n'));

        await page.goto(`${p.url}/consent/ppx-no-such-request`);
        const missing = await axeViolations(page);
        assert.deepEqual(missing, [], violationLines(missing).join('\n'));
      } finally {
        await page.close();
      }
    });
  }
});
