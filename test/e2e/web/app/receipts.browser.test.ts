import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { granted } from '../../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, noticeSays, openView, screenshot, shown, signInToApp } from '../../../support/web-app.ts';

// The Receipts view in Chromium: each decision in plain words, its fields underneath, and a
// Download button that saves the signed .jwt file, which verifies with the published JWKS.

describe('the receipts view in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    browser = await launchChromium();
    const g = await granted(p);
    const r = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: g.grantId },
    });
    assert.equal(r.status, 200, r.text);
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('lists receipts in words and downloads one as a verifiable .jwt file', async () => {
    const page = await signInToApp(browser.context, p);
    await openView(page, 'Receipts');
    await page.waitForSelector('li.receipt');
    const text = await shown(page);
    assert.match(text, /You stopped .+ seeing your general traits and fragrance preferences\./);
    assert.match(text, /You let .+ see your general traits and fragrance preferences until \d+ \w+ \d{4}\./);
    assert.doesNotMatch(text, /\{"/, 'no JSON');
    await screenshot(page, 'receipts');

    const first = page.locator('li.receipt').first();
    await first.locator('summary').click();
    assert.match((await first.textContent()) ?? '', /Signed by/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      first.getByRole('button', { name: /Download/ }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^consent-receipt-rcpt_[A-Za-z0-9_-]+\.jwt$/);
    const jws = readFileSync((await download.path())!, 'utf8');
    const jwks = (await (await fetch(`${p.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const { payload } = await compactVerify(jws, createLocalJWKSet(jwks));
    assert.equal(JSON.parse(new TextDecoder().decode(payload)).decision, 'revoked');
    await noticeSays(page, /downloaded as a file/);
  });
});
