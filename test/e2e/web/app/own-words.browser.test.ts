import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { idsFor, localPart, surfaceIdFor } from '../../../../src/surfaces/shared/a2ui/ids.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, noticeSays, screenshot, shown, signInToApp } from '../../../support/web-app.ts';
import { proposed } from '../../../support/writeback.ts';

// Issue 22 items 6 and 7, in Chromium: a suggestion shows what it would replace, several for one
// preference are one card with what it says now shown once; "Change it" with the slider left
// where it was confirms, and where the value came from stays as it was.

describe('the person’s own words in the web app', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    browser = await launchChromium();
    page = await signInToApp(browser.context, p);
    await page.waitForSelector('#area-core');
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  const stored = async (claimId: string) =>
    (await p.deps.store.getProfileContent('ppx:profile:demo-0001'))?.claims.find(
      (c) => c.claim_id === claimId,
    );

  it('"Change it" with the slider not moved confirms: where it came from and how sure stay, and it says so', async () => {
    const before_ = await stored('ppx:claim:demo-core-risk');
    assert.equal(before_?.source.kind, 'imported');
    const card = page.locator(`[data-surface="${surfaceIdFor('claim', 'ppx:claim:demo-core-risk')}"]`);
    assert.match((await card.textContent()) ?? '', /brought over from another app/);
    await card.getByRole('button', { name: 'Change it', exact: true }).click();
    await page.waitForSelector('#notices :text("Confirmed as it is.")');
    assert.doesNotMatch(await shown(page, '#notices'), /It now says what you set/);
    await card.locator(':text("Last confirmed")').waitFor();
    const after_ = await stored('ppx:claim:demo-core-risk');
    assert.deepEqual(after_?.source, before_?.source);
    assert.equal(after_?.confidence, before_?.confidence);
    assert.equal(after_?.value, 0.35);
    assert.ok(after_?.lifecycle?.last_confirmed_at);
    const text = (await card.textContent()) ?? '';
    assert.match(text, /brought over from another app/);
    assert.doesNotMatch(text, /You said this/);
  });

  it('suggestions for one preference: one card, what it says now once, each as now → suggested; accepting one leaves the rest', async () => {
    const g = await p.grant({
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
    });
    const ids: string[] = [];
    for (const value of [['vanilla'], ['musk'], ['vanilla'], ['amber'], ['vanilla']]) {
      const r = await api(p.url, '/v1/profile/propose-updates', {
        token: g.token,
        body: { claims: [proposed('fragrance', 'note_aversions', value, { value_type: 'string_list' })] },
      });
      assert.equal(r.status, 202, r.text);
      ids.push(r.json.proposals[0].proposal_id);
    }
    const surface = surfaceIdFor('suggestions', 'fragrance.note_aversions');
    const id = idsFor(surface);
    const card = page.locator(`[data-surface="${surface}"]`);
    await page.locator(`#${id(`p-${localPart(ids[4] as string)}`)}`).waitFor();
    // The app's name loads after the card is first drawn.
    await card.filter({ hasText: 'Suggested by Fragrance Demo App' }).waitFor();
    assert.equal(await page.locator('#suggestions [data-surface^="ppx-suggestions-"]').count(), 1);
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
    const words = await card.innerText();
    assert.equal(words.match(/Now: /g)?.length, 1, 'the current value once');
    assert.match(words, /Now: Oud, Patchouli heavy\. You said this, very sure \(95%\)\./);
    assert.match(words, /5 suggestions for this/);
    assert.equal(words.match(/Suggested by Fragrance Demo App/g)?.length, 5);
    assert.match(words, /To Vanilla\. Not said by you: worked out from what you did\./);
    assert.equal(words.match(/Accepting it replaces what you said yourself\./g)?.length, 5);
    await screenshot(page, 'suggestion-group');

    const musk = page.locator(`#${id(`p-${localPart(ids[1] as string)}`)}`);
    await musk.getByRole('button', { name: 'Accept the change' }).click();
    await musk.waitFor({ state: 'detached' });
    await noticeSays(page, /The change is now in your profile/);
    assert.deepEqual((await stored('ppx:claim:demo-frag-aversions'))?.value, ['musk']);
    // The rest stay, now measured against what the profile says after it.
    await card.locator(':text("Now: Musk.")').waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
    assert.match(await card.innerText(), /4 suggestions for this/);
  });
});
