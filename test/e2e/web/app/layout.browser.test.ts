import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { surfaceIdFor } from '../../../../src/surfaces/shared/a2ui/ids.ts';
import { APP_VIEWS } from '../../../../src/surfaces/web/app-shell.ts';
import { seriousViolations } from '../../../support/axe.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, live, noticeSays, screenshot, signInToApp } from '../../../support/web-app.ts';
import { requestConsent } from '../../../support/web-session.ts';

// The web app as a person on a phone, on a keyboard, and to axe-core: every view readable at
// 390 px without sideways scrolling, a grant revoked with Tab and Enter alone, and no serious or
// critical axe violation (WCAG 2.1 A and AA rules) on any view. axe is injected by the test,
// in a context that bypasses the page's CSP for that alone (the page itself allows only its own
// script).

/**
 * Every view the app serves (the shell's list, so a new view is covered without editing this
 * test); the page of one preference is shown for one key.
 */
const VIEWS = APP_VIEWS.map(
  (v) => `/app${v}${v === '/data/preference' ? '?key=fragrance.intensity_preference' : ''}`,
);
const WIDTHS = [
  [1280, 800],
  [390, 844],
] as const;

/** Runs in the page: how wide the document is against the window. */
function widths(): { scroll: number; client: number } {
  const doc = (
    globalThis as unknown as { document: { scrollingElement: { scrollWidth: number; clientWidth: number } } }
  ).document;
  return { scroll: doc.scrollingElement.scrollWidth, client: doc.scrollingElement.clientWidth };
}

/** The page's own globals, typed for these few reads (the tests compile without the DOM types). */
interface PageElement {
  readonly tagName: string;
  readonly textContent: string | null;
  closest(selector: string): PageElement | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
}
type PageGlobals = {
  location: { pathname: string };
  document: { activeElement: PageElement | null; querySelector(s: string): PageElement | null };
};

/** Waits until a view has drawn what it loads (no "Loading…" left). */
async function settled(page: Page, path: string): Promise<void> {
  await page.waitForFunction((p) => (globalThis as unknown as PageGlobals).location.pathname === p, path);
  await live(page);
  await page.waitForFunction(
    () =>
      !(globalThis as unknown as PageGlobals).document
        .querySelector('main')
        ?.textContent?.includes('Loading…'),
  );
}

describe('the web app at phone width, by keyboard, and under axe-core', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    // Something in every section: a grant, a pending consent request, a proposal, audit events.
    const g = await p.grant({
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
    });
    await api(p.url, '/v1/profile/summary', { token: g.token });
    await api(p.url, '/v1/profile/propose-updates', {
      token: g.token,
      body: {
        claims: [
          {
            type: 'preference',
            namespace: 'fragrance',
            key: 'freshness_preference',
            value: 0.8,
            confidence: 0.6,
            source: { kind: 'observed', origin: 'in_app_session' },
          },
        ],
      },
    });
    await requestConsent(p);
    browser = await launchChromium({ bypassCSP: true });
    page = await signInToApp(browser.context, p);
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('every view at 1280×800 and 390×844: no serious or critical axe-core violation, no sideways scrolling, a screenshot', async () => {
    for (const [width, height] of WIDTHS) {
      await page.setViewportSize({ width, height });
      for (const path of VIEWS) {
        await page.goto(p.url + path);
        await settled(page, new URL(p.url + path).pathname);
        assert.deepEqual(await seriousViolations(page), [], `${path} at ${width} px`);
        const w = await page.evaluate(widths);
        assert.ok(w.scroll <= w.client, `${path}: ${w.scroll} px wide in a ${w.client} px window`);
        const name = new URL(p.url + path).pathname.replaceAll('/', '-');
        await screenshot(page, `view-${width}${name}`);
      }
    }
    await page.setViewportSize({ width: 900, height: 900 });
  });

  it('keyboard only: Tab to a grant’s revoke button, press Enter, confirm with Enter; the grant ends', async () => {
    const { grant } = await p.grant({
      client_id: 'travel-demo',
      allowed_domains: ['travel'],
      allowed_namespaces: ['travel'],
    });
    await page.goto(`${p.url}/app`);
    await settled(page, '/app');
    // To the navigation by Tab, then Enter on its link to the access view.
    await tabUntil(page, (el) => el.tag === 'A' && el.text === 'Apps');
    await page.keyboard.press('Enter');
    await page.waitForSelector('h1:text-is("Who can see what")');
    const surface = surfaceIdFor('grant', grant.grant_id);
    await page.waitForSelector(`[data-surface="${surface}"]`);
    await tabUntil(page, (el) => el.surface === surface && el.action === 'revoke');
    await page.keyboard.press('Enter');
    // The confirmation step takes the focus on its "Stop access" button: Enter again ends it.
    await page.waitForSelector('.confirm');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-surface="${surface}"]`, { state: 'detached' });
    assert.equal((await p.deps.store.getGrant(grant.grant_id))?.status, 'revoked');
    await noticeSays(page, /can no longer use your preferences/);
    const focused = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).document.activeElement?.tagName ?? '',
    );
    assert.notEqual(focused, 'BODY', 'the focus stays in the page when the card it was on goes');
  });
});

interface Focused {
  readonly tag: string;
  readonly text: string;
  readonly surface: string;
  readonly action: string;
}

/** Presses Tab until the focused element is the one wanted (at most 300 presses). */
async function tabUntil(page: Page, wanted: (el: Focused) => boolean): Promise<void> {
  for (let i = 0; i < 300; i++) {
    await page.keyboard.press('Tab');
    const el = await page.evaluate(() => {
      const a = (globalThis as unknown as PageGlobals).document.activeElement;
      return {
        tag: a?.tagName ?? '',
        text: a?.textContent?.trim() ?? '',
        surface: a?.closest('[data-surface]')?.getAttribute('data-surface') ?? '',
        action: a?.getAttribute('data-action') ?? '',
      };
    });
    if (wanted(el)) return;
  }
  assert.fail('the element was never reached with Tab');
}
