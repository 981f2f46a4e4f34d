import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { AUDIT_GROUPS } from '../../../../web/app/src/audit-words.ts';
import { seriousViolations } from '../../../support/axe.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, openView, screenshot, shown, signInToApp } from '../../../support/web-app.ts';

// The activity view in Chromium (issue 26, item 3): entries name their app and say why a request
// was refused; "What happened" offers the groups; an app's call, and its refused call after the
// person revoked it, appear without reload and are said in the polite live region; the reads per
// app per day, filtered by app; no serious or critical axe violation at 1280×800 and 390×844.

/** Waits until an entry of the log says `words`. */
async function entrySays(page: Page, words: string): Promise<void> {
  await page.locator('ol.log li .what', { hasText: words }).first().waitFor();
}

describe('the activity view in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    browser = await launchChromium({ bypassCSP: true });
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('names the app of every entry, and "What happened" offers the groups in words', async () => {
    const { token } = await p.grant();
    assert.equal((await api(p.url, '/v1/profile/query', { token, body: {} })).status, 200);
    page = await signInToApp(browser.context, p);
    await openView(page, 'Who looked, and when');
    await entrySays(page, 'Fragrance Demo App looked up some of your preferences.');
    const options = await page.locator('#f-what option').allTextContents();
    assert.deepEqual(options, ['Everything', ...Object.values(AUDIT_GROUPS)]);
    assert.doesNotMatch(await shown(page, '#log'), /fragrance-demo|ppx:|grant_|denied\b/);
  });

  it('shows an app’s call, then its refused call after revocation, without reload, said politely', async () => {
    const { grant, token } = await p.grant({
      client_id: 'travel-demo',
      allowed_domains: ['travel'],
      allowed_namespaces: ['travel'],
    });
    assert.equal((await api(p.url, '/v1/profile/summary', { token })).status, 200);
    await entrySays(page, 'Travel Demo Agent read a summary of your preferences.');
    await page
      .locator('#log-live', { hasText: 'Travel Demo Agent read a summary' })
      .waitFor({ state: 'attached' });
    assert.equal(await page.getAttribute('#log-live', 'aria-live'), 'polite');
    // A read changes nothing in the profile: only the stream's notice of the log can bring it.
    assert.equal((await api(p.url, '/v1/profile/summary', { token })).status, 200);
    await page.locator('ol.log li .what', { hasText: 'Travel Demo Agent read a summary' }).nth(1).waitFor();

    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(revoked.status, 200);
    await entrySays(page, 'You ended Travel Demo Agent’s access.');
    assert.equal((await api(p.url, '/v1/profile/summary', { token })).status, 401);
    await entrySays(page, 'Travel Demo Agent was refused: its access had been ended.');
    const refused = page.locator('ol.log li.denied', { hasText: 'its access had been ended' });
    assert.equal(await refused.count(), 1);
    await screenshot(page, 'activity-live');
  });

  it('filters by group: refused requests only, each with its reason', async () => {
    await page.selectOption('#f-what', 'refused');
    await page.click('#f-apply');
    await page.waitForFunction(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelectorAll(s: string): { textContent: string | null }[] };
        }
      ).document;
      const items = [...doc.querySelectorAll('ol.log li .what')];
      return items.length > 0 && items.every((li) => /was refused: \w/.test(li.textContent ?? ''));
    });
    assert.doesNotMatch(await shown(page, '#log'), /read a summary/);
    await page.selectOption('#f-what', '');
    await page.click('#f-apply');
    await entrySays(page, 'Travel Demo Agent read a summary of your preferences.');
  });

  it('draws reads per app per day, and the person picks one app', async () => {
    const figure = page.locator('#plot-access figure');
    await figure.waitFor();
    assert.match(await shown(page, '#plot-access'), /Fragrance Demo App/);
    assert.match(await shown(page, '#plot-access'), /Travel Demo Agent/);
    await page.selectOption('#plot-app', 'travel-demo');
    await page.waitForFunction(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelector(s: string): { textContent: string | null } | null };
        }
      ).document;
      const text = doc.querySelector('#plot-access figure')?.textContent ?? '';
      return text.includes('Travel Demo Agent') && !text.includes('Fragrance Demo App');
    });
    assert.ok(await page.locator('#plot-access table').count(), 'the same numbers as a table');
  });

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`has no serious or critical axe violation at ${width}×${height}`, async () => {
      await page.setViewportSize({ width, height });
      await page.locator('#plot-access figure').waitFor();
      const found = await seriousViolations(page);
      assert.deepEqual(found, [], JSON.stringify(found));
      const { scroll, client } = await page.evaluate(() => {
        const doc = (
          globalThis as unknown as {
            document: { scrollingElement: { scrollWidth: number; clientWidth: number } };
          }
        ).document;
        return { scroll: doc.scrollingElement.scrollWidth, client: doc.scrollingElement.clientWidth };
      });
      assert.ok(scroll <= client, `no sideways scrolling at ${width}: ${scroll} > ${client}`);
      await screenshot(page, `activity-${width}`);
    });
  }
});
