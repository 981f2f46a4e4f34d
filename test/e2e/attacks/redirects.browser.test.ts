import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../support/chromium.ts';
import { requestBody } from '../../support/consent-flow.ts';
import { authorizeUrl, get, pkce } from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import { cookieFrom, hiddenField } from '../../support/web-session.ts';
import { accountSignedIn, decisionFields, newSession, post, type SignedIn } from './helpers.ts';

// Open redirects: the provider sends a browser to another site only at a redirect URI the client
// registered, compared as an exact string (OAuth 2.1 §4.1.1, WIRE-NOTES §2.1). Every look-alike
// of a registered URI is refused on a page shown to the person (never a redirect, whatever else
// the request gets wrong: RFC 6749 §4.1.2.1), sign-in only ever returns to a path on this site,
// and a decision never sends the browser to an address the client no longer has registered.

const GOOD = 'https://good.example/cb';
const LOOPBACK = 'http://localhost:5173/callback';

/** Look-alikes of GOOD: none is GOOD as a string, each is refused. */
const LOOK_ALIKES: [string, string][] = [
  ['not registered', 'https://evil.example/cb'],
  ['a longer path (prefix match)', 'https://good.example/cb/more'],
  ['a path that only starts the same', 'https://good.example/cbx'],
  ['a trailing slash', 'https://good.example/cb/'],
  ['a query added', 'https://good.example/cb?next=https://evil.example'],
  ['a host suffix', 'https://good.example.evil.example/cb'],
  ['a host prefix', 'https://evilgood.example/cb'],
  ['a trailing dot in the host', 'https://good.example./cb'],
  ['userinfo', 'https://good.example@evil.example/cb'],
  ['userinfo, encoded', 'https://good.example%40evil.example/cb'],
  ['an encoded slash before @', 'https://good.example%2F@evil.example/cb'],
  ['percent-encoded path', 'https://good.example/%63b'],
  ['percent-encoded whole', 'https%3A%2F%2Fgood.example%2Fcb'],
  ['a backslash before @', 'https://good.example\\@evil.example/cb'],
  ['a backslash host', 'https://evil.example\\.good.example/cb'],
  ['another port', 'https://good.example:8443/cb'],
  ['the default port spelled out', 'https://good.example:443/cb'],
  ['http instead of https', 'http://good.example/cb'],
  ['upper-case host', 'https://GOOD.example/cb'],
  ['upper-case scheme', 'HTTPS://good.example/cb'],
  ['upper-case path', 'https://good.example/CB'],
  ['a fragment', 'https://good.example/cb#https://evil.example'],
  ['path traversal', 'https://good.example/cb/../../evil'],
  ['encoded path traversal', 'https://good.example/cb/..%2F..%2Fevil'],
  ['leading space', ' https://good.example/cb'],
  ['trailing space', 'https://good.example/cb '],
  ['a tab inside', 'https://good.exa\tmple/cb'],
  ['javascript:', 'javascript:alert(document.domain)//https://good.example/cb'],
  ['data:', 'data:text/html,<script>alert(1)</script>'],
  ['scheme-relative', '//good.example/cb'],
  ['loopback look-alike: 127.0.0.1 for localhost', 'http://127.0.0.1:5173/callback'],
  ['loopback look-alike: another port', 'http://localhost:5174/callback'],
  ['loopback look-alike: [::1]', 'http://[::1]:5173/callback'],
];

describe('open redirects', () => {
  let p: TestProvider;
  let me: SignedIn;
  before(async () => {
    p = await startTestProvider();
    me = await accountSignedIn(p, 'redirect-victim', DEMO_SUBJECT);
    const good = await registerClient(p.deps, {
      client_id: 'good-app',
      name: 'Good App',
      redirect_uris: [GOOD, LOOPBACK],
    });
    assert.ok(good.ok);
  });
  after(() => p.close());

  const cookie = () => `ppx_session=${me.session}`;

  /** An authorization request of good-app; `over` changes or drops (undefined) a parameter. */
  function authorize(over: Record<string, string | undefined>): string {
    return authorizeUrl(p, {
      response_type: 'code',
      client_id: 'good-app',
      redirect_uri: GOOD,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 'st',
      ...over,
    });
  }

  /** A page for the person: 400, no Location, and no link to wherever the request pointed. */
  async function assertShownNotRedirected(res: Response, uri: string, what: string) {
    assert.equal(res.status, 400, what);
    assert.equal(res.headers.get('location'), null, what);
    const html = await res.text();
    assert.match(html, /This sign-in link is not valid/, what);
    assert.match(html, /nothing was shared/, what);
    assert.ok(!html.includes('href="http') && !html.includes(`href="${uri}`), `${what}: no link off-site`);
    assert.doesNotMatch(html, /<meta[^>]+refresh/i, what);
  }

  for (const [what, uri] of LOOK_ALIKES) {
    it(`/oauth/authorize: ${what} (${JSON.stringify(uri)}) is shown, not followed`, async () => {
      // Signed in or not, and even with every other parameter wrong too (§4.1.2.1: an unverified
      // redirect URI is never used, not even for the errors the client would otherwise get).
      for (const session of [cookie(), undefined]) {
        await assertShownNotRedirected(await get(authorize({ redirect_uri: uri }), session), uri, what);
        const worse = authorize({ redirect_uri: uri, response_type: 'token', code_challenge: undefined });
        await assertShownNotRedirected(await get(worse, session), uri, `${what}, other errors too`);
      }
    });
  }

  it('/oauth/authorize: an unknown client, a repeated client_id or redirect_uri: a page, never a redirect', async () => {
    const unknown = authorize({ client_id: 'no-such-app', redirect_uri: 'https://evil.example/cb' });
    await assertShownNotRedirected(await get(unknown, cookie()), 'https://evil.example/cb', 'unknown client');
    const twice = `${authorize({})}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`;
    await assertShownNotRedirected(
      await get(twice, cookie()),
      'https://evil.example/cb',
      'redirect_uri twice',
    );
    const twoClients = `${authorize({})}&client_id=other`;
    await assertShownNotRedirected(await get(twoClients, cookie()), GOOD, 'client_id twice');
  });

  it('control: the registered URI exactly gets the consent page, and its errors go back to it', async () => {
    const ok = await get(authorize({}), cookie());
    assert.equal(ok.status, 302);
    assert.match(ok.headers.get('location')!, /^\/consent\/gr_/);
    const err = await get(authorize({ response_type: 'token' }), cookie());
    assert.equal(err.status, 302);
    const back = new URL(err.headers.get('location')!);
    assert.equal(`${back.origin}${back.pathname}`, GOOD);
    assert.equal(back.searchParams.get('error'), 'unsupported_response_type');
  });

  it('consent-v2: every look-alike is refused when the request is made (400 invalid_redirect_uri)', async () => {
    for (const [what, uri] of LOOK_ALIKES) {
      const r = await api(p.url, '/v1/consent/request', {
        body: requestBody(p, pkce().challenge, { client_id: 'good-app', redirect_uri: uri }),
      });
      if (r.status === 201) {
        // The request schema (zod's url) trims spaces and drops tabs as URL parsing does: then
        // what is kept, and where the browser goes, is the registered URI itself.
        assert.ok(/^\s|\s$|\t/.test(uri), `${what} was accepted`);
        const stored = await p.deps.store.getGrantRequest(r.json.grant_request_id);
        assert.equal(stored?.redirect_uri, GOOD, what);
        // Answered, so that the next ones find a place (an app has few waiting: issue 22 item 10).
        await p.store.transitionGrantRequest(r.json.grant_request_id, 'pending', { status: 'rejected' });
        continue;
      }
      assert.equal(r.status, 400, `${what}: ${r.text}`);
      assert.ok(
        ['invalid_redirect_uri', 'invalid_request'].includes(r.json.error),
        `${what}: ${r.json.error}`,
      );
      assert.equal(r.json.consent_url, undefined, what);
    }
  });

  it('registration refuses redirect URIs a browser must never be sent to', async () => {
    for (const uri of [
      'javascript:alert(1)',
      'data:text/html,x',
      'https://good.example/cb#frag',
      'https://user:pass@good.example/cb',
      'http://good.example/cb',
      'file:///etc/passwd',
      'com.example.app:/cb',
      '/relative/cb',
    ]) {
      const r = await api(p.url, '/oauth/register', {
        body: { redirect_uris: [uri], token_endpoint_auth_method: 'none', client_name: 'x' },
      });
      assert.equal(r.status, 400, uri);
      assert.equal(r.json.error, 'invalid_redirect_uri', uri);
    }
    for (const uri of [
      'javascript:alert(1)',
      'https://a@b.example/cb',
      'https://b.example/#x',
      'ftp://b.example/',
    ]) {
      const r = await registerClient(p.deps, { client_id: 'bad-app', name: 'Bad', redirect_uris: [uri] });
      assert.equal(r.ok, false, uri);
    }
  });

  describe('after sign-in: return_to stays on this site', () => {
    const OFF_SITE = [
      '//evil.example',
      '//evil.example/path',
      '///evil.example',
      '/\\evil.example',
      '\\/evil.example',
      '/\t/evil.example',
      '/.//evil.example',
      '/./\\evil.example',
      '/a/..//evil.example',
      '/%2e//evil.example',
      '/..//evil.example',
      '/x/../..//evil.example',
      'https:evil.example',
      'https:/evil.example',
      'https://evil.example/',
      'http://127.0.0.1:1/',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,x',
      ' /app',
      '',
    ];

    async function signInWith(returnTo: string | undefined, extra: [string, string][] = []) {
      const form = await fetch(
        `${p.url}/signin${returnTo !== undefined ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`,
      );
      const html = await form.text();
      const fields: [string, string][] = [
        ['csrf', hiddenField(html, 'csrf')!],
        ['username', 'redirect-victim'],
        ['password', 'redirect-victim-password-1'],
        ...extra,
      ];
      // The form's own hidden return_to, as the browser would send it back.
      const shown = hiddenField(html, 'return_to');
      if (shown !== undefined) fields.push(['return_to', decodeEntities(shown)]);
      const r = await post(p, '/signin', { fields, cookies: { ppx_csrf: cookieFrom(form, 'ppx_csrf')! } });
      assert.equal(r.status, 303);
      return r.headers.get('location')!;
    }

    /** What a browser makes of a Location on this provider. */
    const landing = (location: string) => new URL(location, p.url);

    for (const target of OFF_SITE) {
      it(`${JSON.stringify(target)}: the web app, not another site`, async () => {
        const location = await signInWith(target);
        assert.equal(landing(location).origin, new URL(p.url).origin, `${target} → ${location}`);
        assert.equal(location, '/app', `${target} → ${location}`);
        // Posted directly (not through the page), too.
        const form = await fetch(`${p.url}/signin`);
        const r = await post(p, '/signin', {
          fields: [
            ['csrf', hiddenField(await form.text(), 'csrf')!],
            ['username', 'redirect-victim'],
            ['password', 'redirect-victim-password-1'],
            ['return_to', target],
          ],
          cookies: { ppx_csrf: cookieFrom(form, 'ppx_csrf')! },
        });
        assert.equal(r.headers.get('location'), '/app', `posted ${target}`);
      });
    }

    it('a path on this site is kept; `next`, `redirect` and `url` parameters are not read at all', async () => {
      assert.equal(await signInWith('/consent/abc?x=1'), '/consent/abc?x=1');
      for (const name of ['next', 'redirect', 'redirect_uri', 'url', 'continue']) {
        const location = await signInWith(undefined, [[name, 'https://evil.example/']]);
        assert.equal(location, '/app', name);
      }
    });

    it('the sign-up link on the sign-in page carries only a local return path', async () => {
      const html = await (
        await fetch(`${p.url}/signin?return_to=${encodeURIComponent('//evil.example')}`)
      ).text();
      assert.equal(hiddenField(html, 'return_to'), '/app');
    });
  });

  describe('the decision path', () => {
    it('consent-v2 approve and reject return to the registered URI only, with the decision', async () => {
      for (const decision of ['approve', 'reject']) {
        const r = await api(p.url, '/v1/consent/request', {
          body: requestBody(p, pkce().challenge, { client_id: 'good-app', redirect_uri: GOOD }),
        });
        assert.equal(r.status, 201, r.text);
        const consent = `/consent/${r.json.grant_request_id}`;
        const res = await post(p, `${consent}/decision`, {
          fields: await decisionFields(p, consent, me.session, decision),
          cookies: { ppx_session: me.session },
        });
        assert.equal(res.status, 303);
        const back = new URL(res.headers.get('location')!);
        assert.equal(`${back.origin}${back.pathname}`, GOOD, decision);
        assert.equal(back.searchParams.get('decision'), decision);
      }
    });

    it('OAuth deny: error=access_denied at the registered URI, with state and iss', async () => {
      const a = await get(authorize({}), cookie());
      const consent = a.headers.get('location')!;
      const res = await post(p, `${consent}/decision`, {
        fields: [
          ['csrf', me.csrf],
          ['decision', 'reject'],
        ],
        cookies: { ppx_session: me.session },
      });
      assert.equal(res.status, 303);
      const back = new URL(res.headers.get('location')!);
      assert.equal(`${back.origin}${back.pathname}`, GOOD);
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), 'st');
      assert.equal(back.searchParams.get('iss'), p.deps.provider.baseUrl);
      assert.equal(back.searchParams.get('code'), null);
    });

    it('a redirect URI deregistered after the request: neither decision sends the browser there', async () => {
      const OLD = 'https://moving.example/cb';
      const reg = (uris: string[]) =>
        registerClient(p.deps, { client_id: 'moving-app', name: 'Moving App', redirect_uris: uris });
      assert.ok((await reg([OLD])).ok);
      const ask = async () => {
        const r = await api(p.url, '/v1/consent/request', {
          body: requestBody(p, pkce().challenge, { client_id: 'moving-app', redirect_uri: OLD }),
        });
        assert.equal(r.status, 201, r.text);
        return r.json.grant_request_id as string;
      };
      const rejected = await ask();
      const approved = await ask();
      // The operator replaces the client's URIs (the old address was lost, say).
      assert.ok((await reg(['https://moved.example/cb'])).ok);
      const session = await newSession(p, DEMO_SUBJECT);
      const decide = async (id: string, decision: string) =>
        post(p, `/consent/${id}/decision`, {
          fields: await decisionFields(p, `/consent/${id}`, session.session, decision),
          cookies: { ppx_session: session.session },
        });
      const page = await (await get(`${p.url}/consent/${approved}`, `ppx_session=${session.session}`)).text();
      assert.match(page, /⚠ not verified/);

      const no = await decide(rejected, 'reject');
      assert.equal(no.status, 303);
      assert.equal(no.headers.get('location'), `${p.deps.provider.baseUrl}/consent/${rejected}/done`);
      assert.equal((await p.deps.store.getGrantRequest(rejected))?.status, 'rejected');

      const yes = await decide(approved, 'approve');
      assert.equal(yes.status, 400);
      assert.equal(yes.headers.get('location'), null);
      assert.match(await yes.text(), /no longer registered/);
      assert.equal((await p.deps.store.getGrantRequest(approved))?.status, 'pending', 'nothing was approved');
    });
  });
});

describe('sign-in in Chromium never lands on another site', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };
  before(async () => {
    p = await startTestProvider();
    await accountSignedIn(p, 'browser-redirect', DEMO_SUBJECT);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });
  beforeEach(() => browser.context.clearCookies());

  for (const target of ['/.//evil.example/', '//evil.example/', '/\\evil.example/', 'https:evil.example']) {
    it(`return_to=${JSON.stringify(target)} ends on this provider`, async () => {
      const page = await browser.context.newPage();
      const offSite: string[] = [];
      // Any request to the would-be target host is recorded and answered here (nothing leaves).
      await page.route(
        (url) => url.hostname.endsWith('evil.example'),
        (route) => {
          offSite.push(route.request().url());
          return route.fulfill({ status: 200, body: 'evil' });
        },
      );
      try {
        await page.goto(`${p.url}/signin?return_to=${encodeURIComponent(target)}`);
        await page.fill('#username', 'browser-redirect');
        await page.fill('#password', 'browser-redirect-password-1');
        await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Sign in")')]);
        await page.waitForURL(
          (url) => !url.pathname.startsWith('/signin') || url.origin !== new URL(p.url).origin,
        );
        assert.equal(new URL(page.url()).origin, new URL(p.url).origin, page.url());
        assert.deepEqual(offSite, []);
      } finally {
        await page.close();
      }
    });
  }
});

function decodeEntities(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
