import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testClock } from '../../support/clock.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { cookieFrom, hiddenField } from '../../support/web-session.ts';

// The sign-in attempt limit (20 per address per 300 s) and the authorization server's budget
// (the API's limit, per address), counted through the rate-limit port with the provider's clock:
// the test moves the clock instead of waiting (operations/provider/rate-limits.ts).

describe('rate limits of the pages and the authorization server (limit 5)', () => {
  let p: TestProvider;
  const time = testClock();
  before(async () => {
    p = await startTestProvider({ rateLimit: 5, clock: time.clock });
  });
  after(() => p.close());

  async function signInAttempt(): Promise<{ status: number; text: string }> {
    const form = await fetch(`${p.url}/signin`);
    const pre = cookieFrom(form, 'ppx_csrf')!;
    const res = await fetch(`${p.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ppx_csrf=${pre}` },
      body: new URLSearchParams({
        csrf: hiddenField(await form.text(), 'csrf')!,
        username: 'nobody',
        password: 'wrong-password',
      }),
    });
    return { status: res.status, text: await res.text() };
  }

  it('20 sign-in attempts per 300 s window, then a page that says to wait; the next window allows again', async () => {
    time.toNextWindow(300_000);
    for (let i = 1; i <= 20; i++) assert.equal((await signInAttempt()).status, 401, `attempt ${i}`);
    const refused = await signInAttempt();
    assert.equal(refused.status, 429);
    assert.match(refused.text, /Too many sign-in attempts\. Wait a few minutes and try again\./);
    time.advance(298_000); // the same window
    assert.equal((await signInAttempt()).status, 429);
    time.advance(2_000); // the next one
    assert.equal((await signInAttempt()).status, 401);
  });

  it('the OAuth endpoints share one budget per address, with RateLimit-* headers, and reset with the window', async () => {
    time.toNextWindow(60_000);
    const token = () =>
      fetch(`${p.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&client_id=fragrance-demo&refresh_token=x',
      });
    for (let i = 1; i <= 4; i++) assert.equal((await token()).status, 400, `request ${i}`);
    // the authorization endpoint counts against the same budget
    assert.notEqual((await fetch(`${p.url}/oauth/authorize`, { redirect: 'manual' })).status, 429);
    const limited = await token();
    assert.equal(limited.status, 429);
    assert.deepEqual(await limited.json(), { error: 'rate_limited', error_description: 'too many requests' });
    assert.equal(limited.headers.get('ratelimit-limit'), '5');
    assert.equal(limited.headers.get('retry-after'), '59');
    assert.equal((await fetch(`${p.url}/oauth/authorize`, { redirect: 'manual' })).status, 429);
    time.toNextWindow(60_000);
    assert.equal((await token()).status, 400);
  });
});
