import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { surfaceIdFor } from '../../../../src/surfaces/shared/a2ui/ids.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, live, noticeSays, openView, screenshot, signInToApp } from '../../../support/web-app.ts';
import { exchange, requestConsent } from '../../../support/web-session.ts';

// The web app draws its surfaces from A2UI v0.9 messages by default and from v0.8 ones with
// `?a2ui=v0.8` (docs/a2ui.md, "Two versions"; docs/web-app.md, "The renderer"). The other browser
// tests run in v0.9; this one checks the default is v0.9, then that in v0.8 the surfaces are drawn
// the same and their actions work: a claim changed with its slider, a consent request approved
// narrowed (the context read from the form's data model), a grant revoked in another view that
// the navigation reached without leaving v0.8.

describe('the web app in A2UI v0.8 (?a2ui=v0.8)', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  const versions = () =>
    page.$$eval('[data-surface]', (els) => [...new Set(els.map((e) => e.getAttribute('data-a2ui')))]);

  it('by default every surface is drawn from v0.9 messages', async () => {
    page = await signInToApp(browser.context, p);
    await page.waitForSelector('#area-core [data-surface]');
    assert.deepEqual(await versions(), ['v0.9']);
  });

  it('with ?a2ui=v0.8 the same cards are drawn from v0.8 messages, and a slider change is saved', async () => {
    await page.goto(`${p.url}/app?a2ui=v0.8`);
    await live(page);
    const card = page.locator(`[data-surface="${surfaceIdFor('claim', 'ppx:claim:demo-core-novelty')}"]`);
    await card.waitFor();
    assert.deepEqual(await versions(), ['v0.8']);
    assert.match((await card.textContent()) ?? '', /Trying new things.*High \(62%\)/s);
    await screenshot(page, 'overview-v0.8');
    const slider = card.getByLabel('Move it to change it');
    await slider.focus();
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowLeft');
    await card.getByRole('button', { name: 'Change it' }).click();
    await noticeSays(page, /Changed\. It now says what you set\./);
    await card.locator(':text("Medium (50%)")').waitFor();
    const claim = (await p.deps.store.getProfileContent('ppx:profile:demo-0001'))?.claims.find(
      (c) => c.claim_id === 'ppx:claim:demo-core-novelty',
    );
    assert.equal(claim?.value, 0.5);
  });

  it('in v0.8 a consent request approved with changes gives exactly what was kept', async () => {
    const req = await requestConsent(p);
    const form = page.locator('[data-surface^="ppx-consent-"]');
    await form.getByText('Fragrance Demo App asks to use your preferences').waitFor();
    assert.equal(await form.getAttribute('data-a2ui'), 'v0.8');
    await form.getByLabel('Explain why something suits you').uncheck();
    await form.getByLabel('General traits').uncheck();
    await form.getByRole('button', { name: 'Allow with my changes' }).click();
    await noticeSays(page, /Fragrance Demo App can now use what you allowed/);
    const token = await exchange(p, req);
    assert.equal(token.status, 200, token.text);
    const grant = await p.deps.store.getGrant(token.json.grant_id);
    assert.deepEqual(grant?.purposes, ['recommendation']);
    assert.deepEqual(grant?.allowed_namespaces, ['fragrance']);
  });

  it('the navigation keeps v0.8: a grant card there is v0.8, and revoking it works', async () => {
    const { grant, token } = await p.grant({
      client_id: 'travel-demo',
      allowed_domains: ['travel'],
      allowed_namespaces: ['travel'],
    });
    await openView(page, 'Who can see what');
    assert.equal(new URL(page.url()).search, '?a2ui=v0.8');
    const card = page.locator(`[data-surface="${surfaceIdFor('grant', grant.grant_id)}"]`);
    await card.waitFor();
    assert.equal(await card.getAttribute('data-a2ui'), 'v0.8');
    await card.getByRole('button', { name: /revoke/i }).click();
    await page.getByRole('button', { name: 'Stop access' }).click();
    await card.waitFor({ state: 'detached' });
    const read = await api(p.url, '/v1/profile/summary', { token });
    assert.ok(read.status === 401 || read.status === 403, `the read after revoking: ${read.status}`);
  });
});
