import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createSubject } from '../../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../../src/operations/seed/demo-profile.ts';
import { createWebApp } from '../../../../src/surfaces/web/app.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { cookieFrom, hiddenField, requestConsent, signInOverHttp } from '../../../support/web-session.ts';

// The web app as the provider serves it, over plain HTTP (the browser tests are app.browser.test.ts):
// the page needs the session, carries the CSRF token and a strict CSP, its built files are
// served with long cache lifetimes, and without a bundle /app answers a page in words.

const USER = { username: 'app-user', password: 'app-password-1' };
const BUNDLE = new URL('../../../../dist/app/.vite/manifest.json', import.meta.url);

describe('the web app at /app, served by the provider', () => {
  let p: TestProvider;
  let session: string;
  let csrf: string;
  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    ({ session, csrf } = await signInOverHttp(p.url, USER.username, USER.password));
  });
  after(() => p.close());

  const get = (path: string, cookie = `ppx_session=${session}`) =>
    fetch(p.url + path, { headers: { cookie }, redirect: 'manual' });

  it('without a session, /app and its views send the person to sign in, and back', async () => {
    for (const path of ['/app', '/app/access', '/app/activity']) {
      const r = await get(path, '');
      assert.equal(r.status, 303, path);
      assert.equal(r.headers.get('location'), `/signin?return_to=${encodeURIComponent(path)}`);
    }
  });

  it('a plain sign-in lands on /app', async () => {
    const form = await fetch(`${p.url}/signin`);
    const page = await form.text();
    assert.equal(hiddenField(page, 'return_to'), '/app');
    const r = await fetch(`${p.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `ppx_csrf=${cookieFrom(form, 'ppx_csrf')}`,
      },
      body: new URLSearchParams({ csrf: hiddenField(page, 'csrf')!, return_to: '/app', ...USER }),
    });
    assert.equal(r.status, 303);
    assert.equal(r.headers.get('location'), '/app');
  });

  it('the page: the bundle, the CSRF token in a <meta>, a CSP allowing this origin only', {
    skip: !existsSync(BUNDLE) && 'run npm run build:app first',
  }, async () => {
    for (const path of ['/app', '/app/access', '/app/history', '/app/activity', '/app/data']) {
      const r = await get(path);
      assert.equal(r.status, 200, path);
      const csp = r.headers.get('content-security-policy') ?? '';
      for (const d of [
        "script-src 'self'",
        "default-src 'none'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ]) {
        assert.ok(csp.includes(d), `${d} in ${csp}`);
      }
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      const html = await r.text();
      assert.ok(html.includes(`<meta name="ppx-csrf" content="${csrf}">`));
      assert.match(html, /<script type="module" src="\/app\/assets\/main-[\w-]+\.js"><\/script>/);
      assert.doesNotMatch(
        html,
        /<script>|<style>|style="|https?:\/\/(?!127)/,
        'no inline script or style, nothing from elsewhere',
      );
    }
  });

  it('the built files: long cache lifetimes, the right types; a name not in the bundle is 404', {
    skip: !existsSync(BUNDLE) && 'run npm run build:app first',
  }, async () => {
    const html = await (await get('/app')).text();
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const style = /href="(\/app\/assets\/[^"]+\.css)"/.exec(html)![1]!;
    for (const [path, type] of [
      [script, /^text\/javascript/],
      [style, /^text\/css/],
    ] as const) {
      const r = await fetch(p.url + path);
      assert.equal(r.status, 200, path);
      assert.match(r.headers.get('content-type')!, type);
      assert.match(r.headers.get('cache-control')!, /max-age=31536000, immutable/);
      const body = await r.text();
      assert.doesNotMatch(body, /https:\/\/(cdn|unpkg|fonts\.googleapis)/, 'nothing fetched from elsewhere');
    }
    assert.equal((await fetch(`${p.url}/app/assets/nope.js`)).status, 404);
    assert.equal((await fetch(`${p.url}/app/assets/..%2f..%2fpackage.json`)).status, 404);
  });

  it('another address under /app is a page in words (404); /app/ is /app', async () => {
    const r = await get('/app/nope');
    assert.equal(r.status, 404);
    assert.match(r.headers.get('content-type')!, /^text\/html/);
    assert.match(await r.text(), /There is no such page/);
    const slash = await get('/app/');
    assert.equal(slash.status, 308);
    assert.equal(slash.headers.get('location'), '/app');
  });

  it('the app names: only on the session, only registered apps', async () => {
    assert.equal((await get('/app/apps.json?id=fragrance-demo', '')).status, 401);
    const r = await get('/app/apps.json?id=fragrance-demo&id=no-such-app');
    assert.equal(r.status, 200);
    const body = (await r.json()) as { apps: Record<string, { name: string; vouched: boolean }> };
    assert.deepEqual(Object.keys(body.apps), ['fragrance-demo']);
    assert.equal(body.apps['fragrance-demo']!.vouched, true);
  });

  it('without a built bundle, /app says so in words (503), never a crash', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ppx-no-app-'));
    try {
      const web = createWebApp(p.deps, { log: () => undefined, appDir: pathToFileURL(`${empty}/`) });
      const r = await web.request('/app', { headers: { cookie: `ppx_session=${session}` } });
      assert.equal(r.status, 503);
      const html = await r.text();
      assert.match(html, /This page is not available yet/);
      assert.match(html, /npm run build:app/);
      assert.equal((await web.request('/app/assets/main.js')).status, 404);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('the consent page and the signed-in page link to the app', async () => {
    const signedIn = await (await get('/signin')).text();
    assert.match(signedIn, /<a href="\/app">/);
    const req = await requestConsent(p);
    const consent = await (await get(`/consent/${req.grant_request_id}`)).text();
    assert.match(consent, /<a href="\/app">Your preferences<\/a>/);
  });
});
