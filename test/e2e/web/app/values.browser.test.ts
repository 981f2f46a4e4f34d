import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, violationLines } from '../../../support/axe.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, live, noticeSays, screenshot, shown, signInToApp } from '../../../support/web-app.ts';
import { proposed } from '../../../support/writeback.ts';

// Issue 26 items 2 and 4, in Chromium and by keyboard only: every kind of value the demo
// vocabularies hold changed on its preference's page, a refused change said in words, the
// history with what replaced what, the sensitive preferences and who sees them, and an app's
// suggestion against what the person said shown now → suggested, picked, the old value kept in
// the history. axe-core on these views at desktop and phone width.

const PROFILE = 'ppx:profile:demo-0001';

describe(
  'changing every kind of value, history, sensitive preferences and conflicts',
  skipWhen(SKIP_NO_CHROMIUM),
  () => {
    let p: TestProvider;
    let browser: Awaited<ReturnType<typeof launchChromium>>;
    let page: Page;

    before(async () => {
      p = await startTestProvider();
      await addPerson(p);
      browser = await launchChromium({ bypassCSP: true });
      page = await signInToApp(browser.context, p);
      await page.waitForSelector('#area-core');
    });
    after(async () => {
      await browser?.close();
      await p?.close();
    });

    const stored = async (key: string) =>
      (await p.deps.store.getProfileContent(PROFILE))?.claims.find((c) => c.key === key);

    async function open(path: string): Promise<void> {
      await page.goto(p.url + path);
      await live(page);
    }

    it('"Change it" on a number of days opens its page; a whole number is saved by keyboard, 2.5 is refused in words', async () => {
      const card = page.locator('[data-surface="ppx-claim-demo-travel-days"]');
      await card.getByRole('button', { name: 'Change it', exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((u) => u.pathname === '/app/data/preference');
      const input = page.locator('#edit-0-value');
      await input.waitFor();
      assert.equal(await page.getAttribute('label[for="edit-0-value"]', 'for'), 'edit-0-value');
      assert.match(await shown(page, 'label[for="edit-0-value"]'), /Length of a trip, in days/);
      await input.focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('2.5');
      await page.keyboard.press('Enter');
      await page
        .locator('#edit-0-error', { hasText: 'It was not changed: the value must be a whole number.' })
        .waitFor();
      assert.equal((await stored('trip_duration_preference_days'))?.value, 6);
      await input.focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('9');
      await page.keyboard.press('Enter');
      await noticeSays(page, /Changed\. It now says what you set/);
      assert.equal((await stored('trip_duration_preference_days'))?.value, 9);
      assert.equal((await stored('trip_duration_preference_days'))?.source.kind, 'user_stated');
    });

    it('a choice (radio group) by keyboard, and the history says what replaced what, who and when', async () => {
      await open('/app/data/preference?key=travel.accommodation_style');
      const checked = page.locator('#edit-0-choice input:checked');
      await checked.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.id'), 'edit-0-save');
      await page.keyboard.press('Enter');
      await noticeSays(page, /Changed/);
      assert.equal((await stored('accommodation_style'))?.value, 'business');
      await page.locator('#versions li', { hasText: 'Business hotel' }).first().waitFor();
      const history = await shown(page, '#preference-history');
      assert.match(history, /Business hotel\s+You changed it on /);
      assert.match(
        history,
        /Small, stylish hotel\s+An import brought it in on [^\n]*\s+You said this\.\s+Replaced on [^\n]* by: Business hotel\./,
      );
      await screenshot(page, 'preference-history');
    });

    it('a list: remove one and add one, by keyboard', async () => {
      await open('/app/data/preference?key=fragrance.note_aversions');
      await page.getByRole('button', { name: 'Remove Oud' }).focus();
      await page.keyboard.press('Enter');
      await page.locator('#edit-0-add-name').focus();
      await page.keyboard.type('Vanilla');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Remove Vanilla' }).waitFor();
      await page.locator('#edit-0-save').focus();
      await page.keyboard.press('Enter');
      await noticeSays(page, /Changed/);
      assert.deepEqual((await stored('note_aversions'))?.value, ['patchouli_heavy', 'vanilla']);
    });

    it('named levels: change one level by keyboard', async () => {
      await open('/app/data/preference?key=fragrance.family_preference');
      await page.locator('#edit-0-level-0').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('30');
      await page.keyboard.press('Enter');
      await noticeSays(page, /Changed/);
      const family = (await stored('family_preference'))?.value as Record<string, number> | undefined;
      assert.equal(family?.['woody'], 0.3);
    });

    it('the sensitive view: mark a preference sensitive by keyboard, then see it and which apps can see it', async () => {
      await p.grant({ allowed_operations: ['read'] });
      await open('/app/data/sensitive');
      await page.locator('#sensitive-list :text("None of your preferences is marked sensitive.")').waitFor();
      const box = page.getByRole('checkbox', { name: 'Scent strength' });
      await box.focus();
      await page.keyboard.press('Space');
      await page.locator('#sensitive-save').focus();
      await page.keyboard.press('Enter');
      await noticeSays(page, /Saved/);
      const item = page.locator('#sensitive-list .sensitive-key', { hasText: 'Scent strength' });
      // The app's name loads after the list is first drawn.
      await item.filter({ hasText: 'Fragrance Demo App' }).waitFor();
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
      assert.match(await item.innerText(), /Who can see it: Fragrance Demo App, under what you allowed\./);
      const r = await api(p.url, '/v1/profile/sensitive-keys', {});
      assert.notEqual(r.status, 200, 'no session, no list');
    });

    it('an app’s suggestion against what the person said: side by side, now → suggested, picked by keyboard, the old value in the history', async () => {
      const g = await p.grant({ allowed_operations: ['read', 'propose_update'], writeback_policy: 'allow' });
      const r = await api(p.url, '/v1/profile/propose-updates', {
        token: g.token,
        body: {
          claims: [
            proposed('fragrance', 'sweetness_preference', 0.8, {
              value_type: 'float',
              units: 'normalized_0_1',
            }),
          ],
        },
      });
      assert.equal(r.status, 202, r.text);
      await open('/app/data/conflicts');
      const panel = page.locator('#conflict-fragrance-sweetness_preference');
      // The panel is drawn at once and again when the history (who said it, and when) has loaded.
      // Both the history and the app's name load after the panel is first drawn.
      await panel
        .filter({ hasText: 'You said on ' })
        .filter({ hasText: 'Fragrance Demo App suggested on ' })
        .waitFor();
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
      const words = await panel.innerText();
      assert.match(words, /You said on .*:\n/);
      assert.match(words, /Fragrance Demo App suggested on .*:\n/);
      assert.match(words, /Now: Very low \(18%\) → suggested: Very high \(80%\)/);
      await screenshot(page, 'conflict');
      await page.locator('#conflict-fragrance-sweetness_preference-pick-1').focus();
      await page.keyboard.press('Enter');
      await noticeSays(page, /What it replaced is kept in its history/);
      assert.equal((await stored('sweetness_preference'))?.value, 0.8);
      await page.locator('#conflicts :text("Nothing to settle")').waitFor();
      await open('/app/data/preference?key=fragrance.sweetness_preference');
      await page.locator('#versions li', { hasText: 'Very high (80%)' }).first().waitFor();
      assert.match(await shown(page, '#preference-history'), /Replaced on .* by: Very high \(80%\)\./);
    });

    it('axe-core finds nothing on these views at 1280×800 and 390×844', async () => {
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        for (const path of [
          '/app/data/preference?key=travel.trip_duration_preference_days',
          '/app/data/preference?key=fragrance.note_aversions',
          '/app/data/preference?key=travel.accommodation_style',
          '/app/data/sensitive',
          '/app/data/conflicts',
        ]) {
          await open(path);
          await page.waitForFunction("!document.querySelector('main').textContent.includes('Loading…')");
          assert.deepEqual(violationLines(await axeViolations(page)), [], `${path} at ${width}`);
          const [scroll, client] = (await page.evaluate(
            '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
          )) as [number, number];
          assert.ok(scroll <= client, `${path} at ${width}: no sideways scrolling`);
          if (width === 390) await screenshot(page, `phone${path.replace(/[/?=.]/g, '-')}`);
        }
      }
    });
  },
);
