import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, live, openView, screenshot, shown, signInToApp } from '../../../support/web-app.ts';

// The home view answers at a glance (issue 26 item 1): what waits, which apps can use the
// person's preferences (one line per app, what it sees, whether it may change anything, when it
// last did something) and what happened lately; the access view groups several grants of one
// app, says when each was given and last used; the navigation fits one row at 1280 px.

describe('home at a glance, and access cards by app', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    // Two grants of one app, one of them used; one grant of another app, never used.
    const used = await p.grant({ allowed_operations: ['read', 'query', 'propose_update'] });
    await p.grant({ allowed_namespaces: ['core'], allowed_domains: ['fragrance'] });
    await p.grant({ client_id: 'travel-demo', allowed_domains: ['travel'], allowed_namespaces: ['travel'] });
    assert.equal((await api(p.url, '/v1/profile/summary', { token: used.token })).status, 200);
    browser = await launchChromium();
    page = await signInToApp(browser.context, p);
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('says what waits, which apps can see what, and what happened lately', async () => {
    await live(page);
    await page.waitForSelector('#glance-apps');
    await page.waitForFunction(() =>
      (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
      ).document
        .querySelector('[aria-labelledby="glance-lately"]')
        ?.textContent.includes('(today)'),
    );
    const apps = await shown(page, '[aria-labelledby="glance-apps"]');
    // One line per app, not per grant.
    assert.equal(apps.match(/Fragrance Demo App/g)?.length, 1, apps);
    assert.match(apps, /Fragrance Demo App: sees your [^;]+; may suggest changes; last used today\./);
    assert.match(
      apps,
      /Travel Demo Agent: sees your travel preferences; cannot change anything; not used yet\./,
    );
    assert.match(await shown(page, '[aria-labelledby="glance-waiting"]'), /Nothing\. You are up to date\./);
    assert.match(
      await shown(page, '[aria-labelledby="glance-lately"]'),
      /Fragrance Demo App read a summary of your preferences/,
    );
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      // Drawn afresh at that width: on a phone the areas start folded.
      await page.goto(`${p.url}/app`);
      await live(page);
      await page.waitForSelector('#glance-apps');
      await screenshot(page, `home-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('groups two grants of one app, with when each was given and last used', async () => {
    await page.getByRole('link', { name: 'See or change what each app can do' }).click();
    await page.waitForSelector('h1:text-is("Who can see what")');
    const group = page.getByRole('group', { name: /Fragrance Demo App: 2 separate permissions/ });
    await group.waitFor();
    await page.waitForFunction(() =>
      (
        globalThis as unknown as { document: { body: { textContent: string } } }
      ).document.body.textContent.includes('Last used today'),
    );
    const words = await group.textContent();
    assert.match(words ?? '', /Given on \d{1,2} \w+ \d{4}/);
    assert.match(words ?? '', /Last used today/);
    assert.match(words ?? '', /Not used yet/);
    await screenshot(page, 'access-grouped-1280');
  });

  it('plot text is smaller than the headings on a desktop and at least 11 px on a phone', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${p.url}/app`);
      await live(page);
      await page.waitForSelector('svg.ppx-plot-svg');
      const { smallest, largest, heading } = await page.evaluate(() => {
        type Svg = {
          getBoundingClientRect(): { width: number };
          viewBox: { baseVal: { width: number } };
          querySelectorAll(s: string): Iterable<{ getAttribute(n: string): string | null }>;
        };
        type Doc = {
          querySelectorAll(s: string): Iterable<Svg>;
          querySelector(s: string): unknown;
        };
        const g = globalThis as unknown as {
          document: Doc;
          getComputedStyle(e: unknown): { fontSize: string };
        };
        const sizes: number[] = [];
        for (const svg of g.document.querySelectorAll('svg.ppx-plot-svg')) {
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          for (const t of svg.querySelectorAll('text'))
            sizes.push(Number(t.getAttribute('font-size')) * scale);
        }
        const h2 = parseFloat(g.getComputedStyle(g.document.querySelector('main h2')).fontSize);
        return { smallest: Math.min(...sizes), largest: Math.max(...sizes), heading: h2 };
      });
      assert.ok(smallest >= 10.5, `at ${width} px the smallest plot text is ${smallest.toFixed(1)} px`);
      assert.ok(
        largest < heading,
        `at ${width} px plot text of ${largest.toFixed(1)} px against headings of ${heading} px`,
      );
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('the navigation fits one row at 1280 px, and scrolls sideways in one row on a phone', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await openView(page, 'Your preferences');
      const rows = await page.evaluate(() => {
        const links = (
          globalThis as unknown as {
            document: { querySelectorAll(s: string): Iterable<{ getBoundingClientRect(): { top: number } }> };
          }
        ).document.querySelectorAll('nav li');
        return new Set([...links].map((l) => Math.round(l.getBoundingClientRect().top))).size;
      });
      assert.equal(rows, 1, `the navigation at ${width} px is on ${rows} rows`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
