import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { PENDING_PER_APP } from '../../../../src/operations/consent/pending-caps.ts';
import { REQUEST_TTL_SECONDS } from '../../../../src/operations/consent/request.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { testClock } from '../../../support/clock.ts';
import { pkce, requestBody } from '../../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, signInToApp } from '../../../support/web-app.ts';

// Issue 22 item 10 in the person's app: 500 consent requests sent in a burst used to draw 501
// forms; the caps keep what waits to PENDING_PER_APP per app, and a request the person left
// unanswered for 15 minutes leaves the page by itself (the browser's clock and the provider's
// are both moved, so nothing waits for time to pass).

const FORMS = '#requests [data-surface^="ppx-consent-"]';

describe('consent-request spam in the web app (issue 22 item 10)', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const clock = testClock();

  before(async () => {
    p = await startTestProvider({ clock: clock.clock });
    await addPerson(p);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('500 requests in a burst: the page draws at most the cap of forms', async () => {
    const answers = await Promise.all(
      Array.from({ length: 500 }, () =>
        api(p.url, '/v1/consent/request', { body: requestBody(p, pkce().challenge) }),
      ),
    );
    assert.equal(answers.filter((r) => r.status === 201).length, PENDING_PER_APP);
    await browser.context.clock.install({ time: clock.now() });
    page = await signInToApp(browser.context, p);
    await page.locator(FORMS).first().waitFor();
    assert.equal(await page.locator(FORMS).count(), PENDING_PER_APP);
  });

  it('a request left unanswered for 15 minutes leaves the page without a reload', async () => {
    clock.advance(REQUEST_TTL_SECONDS * 1000 + 1000);
    await page.clock.fastForward(REQUEST_TTL_SECONDS * 1000 + 1000);
    await page.waitForSelector('#requests :text("No app is waiting for an answer.")');
    assert.equal(await page.locator(FORMS).count(), 0);
    // And after a reload, the provider does not list it either.
    await page.reload();
    await page.waitForSelector('#requests :text("No app is waiting for an answer.")');
  });
});
