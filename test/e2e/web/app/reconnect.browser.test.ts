import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Route } from 'playwright-core';
import { surfaceIdFor } from '../../../../src/surfaces/shared/a2ui/ids.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { addPerson, live, openView, signInToApp } from '../../../support/web-app.ts';

// The page's following run drops and the page reconnects from the seq it holds
// (`forwardedProps.since`), catching up on what changed while it was away. The first following
// run is answered by the test with the provider's own snapshot cut short (no RUN_FINISHED, the
// stream simply ends), as a proxy that closes a stream would; every later run goes through.

describe('the web app reconnects without a gap', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  const runs: Record<string, unknown>[] = [];

  before(async () => {
    p = await startTestProvider();
    await addPerson(p);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('a stream cut short: the next run resumes from the state’s seq, and a change made meanwhile shows', async () => {
    let cut = false;
    let changed: Promise<string> | undefined;
    await browser.context.route('**/v1/agui/review', async (route: Route) => {
      const body = JSON.parse(route.request().postData() ?? '{}');
      const props = (body.forwardedProps ?? {}) as Record<string, unknown>;
      const following =
        props['follow'] !== false && props['actions'] === undefined && props['explain'] === undefined;
      if (following) runs.push(props);
      if (!following || cut) return route.continue();
      cut = true;
      // The provider's snapshot, ended before RUN_FINISHED; meanwhile a grant is made elsewhere.
      const once = await route.fetch({
        postData: JSON.stringify({ ...body, forwardedProps: { follow: false } }),
      });
      const events = (await once.text())
        .split('\n\n')
        .filter((e) => e !== '' && !e.includes('"RUN_FINISHED"'));
      changed = p
        .grant({ client_id: 'travel-demo', allowed_domains: ['travel'], allowed_namespaces: ['travel'] })
        .then((g) => g.grant.grant_id);
      await changed;
      await route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: `${events.join('\n\n')}\n\n`,
      });
    });
    const page = await signInToApp(browser.context, p);
    await openView(page, 'Who can see what');
    const grantId = await changed!;
    await page.locator(`[data-surface="${surfaceIdFor('grant', grantId)}"]`).waitFor();
    await live(page);
    assert.ok(runs.length >= 2, 'the page ran again after the stream ended');
    assert.equal(runs[0]?.['since'], undefined, 'the first run starts from nothing');
    assert.equal(typeof runs[1]?.['since'], 'number', 'the next one resumes from the seq it holds');
  });
});
