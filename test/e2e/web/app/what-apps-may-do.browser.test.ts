import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { ClientRecord } from '../../../../src/model/client.ts';
import type { WritebackPolicy } from '../../../../src/model/vocabulary.ts';
import { inTransaction } from '../../../../src/operations/transaction.ts';
import { surfaceIdFor } from '../../../../src/surfaces/shared/a2ui/ids.ts';
import { writePowerWords } from '../../../../src/surfaces/shared/writeback-words.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, openView, shown, signInToApp } from '../../../support/web-app.ts';
import { requestConsent } from '../../../support/web-session.ts';
import { propose, proposed } from '../../../support/writeback.ts';

// What the person is told about apps, in Chromium (issue 22 items 3, 4, 14, 15): every place
// that describes a grant (its card in /app, "Explain this", the consent page) says exactly what
// its write-back policy lets the app do, in the words writePowerWords makes from the rules the
// write-back follows; an app nobody vouches for reads with its host wherever it is named; outside
// text draws without bidi controls; explanations name apps and give the person's own rule.

const POLICIES: WritebackPolicy[] = ['forbidden', 'review_required', 'auto_for_low_risk', 'allow'];
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;
const IMPOSTOR = 'https://impostor.example:8443/client.json';

describe('what the person is told about apps, in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    browser = await launchChromium();
    page = await signInToApp(browser.context, p);
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  /** The words under a grant's card after "Explain this". */
  async function explainGrant(grantId: string): Promise<string> {
    const card = page.locator(`[data-surface="${surfaceIdFor('grant', grantId)}"]`);
    const wrap = page.locator('.claim', { has: card });
    await wrap.getByRole('button', { name: 'Explain this' }).click();
    await wrap.locator('.explanation:not(:empty)').waitFor();
    return (await wrap.locator('.explanation').textContent()) ?? '';
  }

  it('each grant card, and its explanation, says what its write-back policy lets the app do', async () => {
    const grants = new Map<WritebackPolicy, string>();
    for (const policy of POLICIES) {
      const { grant } = await p.grant({
        allowed_operations: ['read', 'query', 'propose_update'],
        writeback_policy: policy,
      });
      grants.set(policy, grant.grant_id);
    }
    await openView(page, 'Who can see what');
    for (const [policy, id] of grants) {
      const card = page.locator(`[data-surface="${surfaceIdFor('grant', id)}"]`);
      await card.waitFor();
      const text = (await card.textContent()) ?? '';
      assert.ok(text.includes(writePowerWords(policy)), `${policy} card: ${text}`);
      const explained = await explainGrant(id);
      assert.ok(explained.includes(writePowerWords(policy)), `${policy} explained: ${explained}`);
      assert.doesNotMatch(explained, /which you review/);
      assert.match(explained, /^Fragrance Demo App can see your/, 'named by its name');
    }
    const allow = (await shown(page)).includes(writePowerWords('allow'));
    assert.ok(allow, 'an allow grant says it changes the profile without asking');
  });

  for (const policy of POLICIES) {
    it(`the consent page says what write-back "${policy}" lets the app do, and promises no review it does not keep`, async () => {
      const req = await requestConsent(p, {
        allowed_operations: ['read', 'query', 'propose_update'],
        writeback_policy: policy,
      });
      const consent = await browser.context.newPage();
      try {
        await consent.goto(`${p.url}/consent/${req.grant_request_id}`);
        await consent.waitForSelector('h1');
        const text = await shown(consent);
        const asked = `${writePowerWords(policy).replace(/\.$/, '')} (as asked)`;
        assert.ok(text.includes(asked), `${policy}: ${asked} in ${text}`);
        assert.doesNotMatch(text, /you review them/, 'the operation does not promise a review');
        if (policy === 'allow') assert.doesNotMatch(text, /review first/);
      } finally {
        await consent.close();
      }
    });
  }

  it('an impostor’s suggestion, grant card and explanation read with its host; the real app’s do not', async () => {
    const record: ClientRecord = {
      client_id: IMPOSTOR,
      name: 'Fragrance Demo App',
      redirect_uris: ['https://impostor.example:8443/cb'],
      kind: 'public',
      created_at: new Date().toISOString(),
      source: 'metadata_document',
      metadata: { client_id: IMPOSTOR, redirect_uris: ['https://impostor.example:8443/cb'] },
    };
    await inTransaction(p.deps, (tx) => tx.store.putClient(record));
    const { grant, token } = await p.grant({
      client_id: IMPOSTOR,
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
    });
    const r = await propose(p, token, [proposed('fragrance', 'projection_tolerance', 0.2)]);
    assert.equal(r.status, 202, r.text);
    await openView(page, 'Your preferences');
    // Suggestions are one card per preference (item 6), named by its key.
    const card = page.locator(
      `[data-surface="${surfaceIdFor('suggestions', 'fragrance.projection_tolerance')}"]`,
    );
    await card.waitFor();
    await card.locator(':text("impostor.example:8443")').first().waitFor();
    assert.match(
      (await card.textContent()) ?? '',
      /Suggested by “Fragrance Demo App” at impostor\.example:8443/,
    );
    const wrap = page.locator('.claim', { has: card });
    await wrap.getByRole('button', { name: 'Explain this' }).click();
    await wrap.locator('.explanation:not(:empty)').waitFor();
    const explained = (await wrap.locator('.explanation').textContent()) ?? '';
    assert.match(explained, /^“Fragrance Demo App” at impostor\.example:8443 suggested/);
    assert.match(explained, /You asked to review every change from this app/i);
    assert.doesNotMatch(explained, /It said why|the grant requires/);
    await openView(page, 'Who can see what');
    const grantCard = page.locator(`[data-surface="${surfaceIdFor('grant', grant.grant_id)}"]`);
    await grantCard.waitFor();
    const heading = grantCard.locator('h3:has-text("impostor.example:8443")');
    await heading.waitFor();
    assert.equal(await heading.textContent(), '“Fragrance Demo App” at impostor.example:8443');
    const text = await shown(page);
    assert.match(text, /Fragrance Demo App\n/, 'the operator’s own app is named plainly');
  });

  it('outside text (values, map keys, domains) draws without bidi controls, on /app and the consent page', async () => {
    const subject = await propose(p, p.subjectToken, [
      proposed('fragrance', 'family_preference', { '\u202eyxoow': 0.9, 'citrus\u2066x\u2069': 0.2 }),
      proposed('fragrance', 'note_aversions', ['\u202eemosewa si ppa siht\u202c', 'oud\u200f'], {
        value_type: 'string_list',
      }),
    ]);
    assert.equal(subject.status, 200, subject.text);
    await p.grant({ allowed_domains: ['fragrance', '\u202eniamod\u202c'] });
    await openView(page, 'Your preferences');
    await page.locator(':text("yxoow")').first().waitFor();
    const overview = await shown(page);
    assert.doesNotMatch(overview, BIDI, 'the overview');
    assert.match(overview, /emosewa si ppa siht/i, 'the value is there, in the order written');
    await openView(page, 'Who can see what');
    await page.locator(':text("niamod")').first().waitFor();
    assert.doesNotMatch(await shown(page), BIDI, 'who can see what');
    const req = await requestConsent(p, { allowed_domains: ['fragrance', '\u2067niamod\u2069'] });
    const consent = await browser.context.newPage();
    try {
      await consent.goto(`${p.url}/consent/${req.grant_request_id}`);
      await consent.waitForSelector('h1');
      const text = await shown(consent);
      assert.match(text, /niamod/i);
      assert.doesNotMatch(text, BIDI, 'the consent page');
      assert.doesNotMatch(await consent.content(), BIDI, 'nor anywhere in its markup');
    } finally {
      await consent.close();
    }
  });
});
