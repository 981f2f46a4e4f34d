import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { surfaceIdFor } from '../../../src/surfaces/shared/a2ui/ids.ts';
import { seriousViolations } from '../../support/axe.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../support/chromium.ts';
import { freePort, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import { addPerson, PERSON, shown } from '../../support/web-app.ts';

// The example app (examples/fragrance-suggester, issue 28 item 4) run as its README says, as a
// process of its own against a started provider, and used in Chromium as a person would: connect,
// sign in at the provider and narrow what is shared, come back and read the suggestion, tell the
// provider "I liked it", stop the access in the provider's web app, and see the example say so.

const SERVER = new URL('../../../examples/fragrance-suggester/server.ts', import.meta.url).pathname;
const CLIENT_ID = 'fragrance-suggester';

/** Starts the example's server and resolves once it says where it listens. */
function startExample(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SERVER], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const read = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Fragrance suggester on')) resolve(child);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`the example exited early (${code}): ${out}`)));
  });
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Runs in the page: whether it is wider than the window (a phone would scroll sideways). */
function scrollsSideways(): boolean {
  const doc = (
    globalThis as unknown as { document: { scrollingElement: { scrollWidth: number; clientWidth: number } } }
  ).document;
  return doc.scrollingElement.scrollWidth > doc.scrollingElement.clientWidth;
}

describe('the example app (examples/fragrance-suggester) in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let app: ChildProcess | undefined;
  let appUrl: string;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    appUrl = `http://127.0.0.1:${await freePort()}`;
    // What `npx ppx client add --id … --redirect-uri …` does for an operator.
    const registered = await registerClient(p.deps, {
      client_id: CLIENT_ID,
      name: 'Fragrance Suggester',
      redirect_uris: [`${appUrl}/callback`],
    });
    assert.ok(registered.ok);
    app = await startExample({
      PROVIDER_URL: p.url,
      APP_URL: appUrl,
      PORT: new URL(appUrl).port,
      CLIENT_ID,
      SUBJECT_ID: p.subjectId,
    });
    // bypassCSP only lets axe-core in (test/support/axe.ts); the last test runs without it.
    browser = await launchChromium({ bypassCSP: true });
    page = await browser.context.newPage();
    page.on('pageerror', (e) => {
      throw new Error(`the page failed: ${e.message}`);
    });
  });
  after(async () => {
    await browser?.close();
    await stop(app);
    await p?.close();
  });

  async function noSeriousViolations(what: string) {
    assert.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
  }

  it('connect: the provider asks the person, who narrows; back in the app, only what was kept is used', async () => {
    await page.goto(appUrl);
    await page.getByRole('heading', { name: 'Find a scent that suits you', level: 1 }).waitFor();
    await noSeriousViolations('the start page');
    assert.equal(await page.getByLabel('Your ID at your preferences provider').inputValue(), p.subjectId);
    await page.getByRole('button', { name: 'Connect your preferences' }).click();

    // The provider: sign in, read the request, untick the general traits, allow.
    await page.waitForURL((url) => url.origin === p.url);
    await page.fill('#username', PERSON.username);
    await page.fill('#password', PERSON.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Fragrance Suggester wants to use your preferences').waitFor();
    await page.uncheck('input[name="namespace"][value="core"]');
    await page.click('button[value="approve"]');

    await page.getByRole('heading', { name: 'Your suggestion', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).origin, appUrl);
    const grants = (await p.store.listGrantsBySubject(p.subjectId)).filter((g) => g.grantee_id === CLIENT_ID);
    assert.equal(grants.length, 1);
    assert.deepEqual(grants[0]?.allowed_namespaces, ['fragrance'], 'the grant is what the person kept');

    const text = await shown(page);
    assert.match(text, /Scent families you like\s+woody 82%, citrus 64%, aquatic 55%, gourmand 18%/);
    assert.match(text, /Scents you dislike\s+oud, patchouli heavy/);
    assert.match(text, /Watching the price\s+You did not share this\./, 'the unticked group is not read');
    assert.doesNotMatch(text, /70%/, 'the price trait (70%) is nowhere on the page');
    assert.match(text, /We suggest Cedar Walk/);
    assert.doesNotMatch(text, /Smoked Library|Night Amber/, 'nothing with a disliked note is suggested');
    await noSeriousViolations('the suggestion page');

    await page.getByLabel('For which occasion?').selectOption('date_night');
    await page.getByRole('button', { name: 'Suggest again' }).click();
    await page.waitForURL((url) => url.searchParams.get('occasion') === 'date_night');
    assert.equal(await page.getByLabel('For which occasion?').inputValue(), 'date_night');

    await page.setViewportSize({ width: 360, height: 740 });
    assert.equal(await page.evaluate(scrollsSideways), false, 'fits a phone-wide window');
    await page.setViewportSize({ width: 900, height: 900 });
  });

  it('"I liked it" is proposed to the provider, which holds it for the person to review', async () => {
    await page.getByRole('button', { name: 'Tell your provider I liked Cedar Walk' }).click();
    const notice = page.getByRole('status');
    await notice.waitFor();
    assert.match(
      (await notice.textContent()) ?? '',
      /^Sent: you liked Cedar Walk\. It is waiting for your review at your provider: nothing changes until you accept it\.$/,
    );
    const proposals = await p.store.listProposals('ppx:profile:demo-0001', 'pending');
    const ours = proposals.filter((x) => x.client_id === CLIENT_ID);
    assert.equal(ours.length, 1);
    assert.equal(ours[0]?.claim.key, 'family_preference');
    assert.deepEqual(ours[0]?.claim.value, { woody: 0.87, citrus: 0.64, aquatic: 0.55, gourmand: 0.18 });
    await page.reload();
    assert.equal(await page.getByRole('status').count(), 0, 'the notice is shown once');
  });

  it('the person stops the access in the provider’s web app: the example says the access has ended', async () => {
    const [grant] = (await p.store.listGrantsBySubject(p.subjectId)).filter(
      (g) => g.grantee_id === CLIENT_ID,
    );
    assert.ok(grant);
    const provider = await browser.context.newPage();
    await provider.goto(`${p.url}/app/access`);
    const card = provider.locator(`[data-surface="${surfaceIdFor('grant', grant.grant_id)}"]`);
    await card.getByRole('button', { name: /revoke/i }).click();
    await provider.getByRole('button', { name: 'Stop access' }).click();
    await card.waitFor({ state: 'detached' });
    await provider.close();

    await page.goto(appUrl);
    await page.getByRole('heading', { name: 'Your provider says this access has ended', level: 1 }).waitFor();
    assert.match(await shown(page), /This app’s access was stopped at your provider\./);
    await page.getByText('What your provider said').click();
    await page.getByText(/“.*revoked.*”/).waitFor();
    await noSeriousViolations('the access-ended page');
    await page.goto(appUrl);
    await page.getByRole('heading', { name: 'Find a scent that suits you', level: 1 }).waitFor();
  });

  it('connecting again, the person says no: the app says nothing was shared', async () => {
    await page.getByRole('button', { name: 'Connect your preferences' }).click();
    await page.waitForURL((url) => url.origin === p.url);
    await page.click('button[value="reject"]');
    await page.getByRole('heading', { name: 'You said no', level: 1 }).waitFor();
    assert.match(await shown(page), /Nothing was shared with this app/);
    await noSeriousViolations('the said-no page');
  });

  it('asked again, allowed without changes: "I liked it" sends nothing and says why', async () => {
    await page.getByRole('button', { name: 'Ask again' }).click();
    await page.waitForURL((url) => url.origin === p.url);
    await page.getByLabel(/^Send changes to your profile/).uncheck();
    await page.click('button[value="approve"]');
    await page.getByRole('heading', { name: 'Your suggestion', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Tell your provider I liked Cedar Walk' }).click();
    await page.getByRole('status').waitFor();
    assert.equal(
      await page.getByRole('status').textContent(),
      'You did not allow this app to suggest changes to your preferences, so nothing was sent.',
    );
    const proposals = await p.store.listProposals('ppx:profile:demo-0001');
    assert.equal(proposals.filter((x) => x.client_id === CLIENT_ID).length, 1, 'only the first one');
  });

  it('the app ends its own access: Disconnect revokes the grant at the provider', async () => {
    const active = async () =>
      (await p.store.listGrantsBySubject(p.subjectId)).filter(
        (g) => g.grantee_id === CLIENT_ID && g.status === 'active',
      );
    const [grant] = await active();
    assert.ok(grant, 'the grant of the last step is active');
    await page.goto(appUrl);
    await page.getByRole('button', { name: /^Disconnect/ }).click();
    await page.getByRole('heading', { name: 'Disconnected', level: 1 }).waitFor();
    await noSeriousViolations('the disconnected page');
    assert.deepEqual(await active(), [], 'no active grant of this app is left');
    assert.equal((await p.store.getGrant(grant.grant_id))?.status, 'revoked');
    await page.goto(appUrl);
    await page.getByRole('heading', { name: 'Find a scent that suits you', level: 1 }).waitFor();
  });

  it('without bypassing its CSP, the connect form may send the person on to the provider', async () => {
    const plain = await launchChromium();
    try {
      const fresh = await plain.context.newPage();
      await fresh.goto(appUrl);
      await fresh.getByRole('button', { name: 'Connect your preferences' }).click();
      await fresh.waitForURL((url) => url.origin === p.url);
      await fresh.locator('#username').waitFor();
    } finally {
      await plain.close();
    }
  });
});
