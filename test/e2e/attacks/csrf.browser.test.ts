import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { createApp } from '../../../src/server.ts';
import { ROUTES } from '../../../src/surfaces/http/route.ts';
import { BACK_CHANNEL_PATHS } from '../../../src/surfaces/oauth/endpoints.ts';
import { createWebApp } from '../../../src/surfaces/web/app.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../support/chromium.ts';
import { codeRequest, get, pkce } from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import { cookieFrom, hiddenField, requestConsent } from '../../support/web-session.ts';
import {
  accountSignedIn,
  escapeForPage,
  newSession,
  post,
  preSessionForm,
  type SignedIn,
  serveSite,
  sessionAlive,
} from './helpers.ts';

// Cross-site request forgery against every state-changing request a browser cookie can carry.
// The set of such routes is read from the server's own route table: a new one that this file does
// not know fails the first test, so no form can be added without its CSRF checks being shown here.
// Each route is attacked the same ways (no token, a wrong one, another session's, one replayed
// after its session ended, a foreign Origin or Referer, Sec-Fetch-Site, no cookie), each attempt
// is checked for its effect (not only its status), and a genuine request shows the effect is
// reachable at all. A real Chromium then posts a form from a page on another site.

/** The passkey requests a page makes before anyone is signed in (guarded by the pre-session cookie). */
const PRE_SESSION_JSON = [
  '/passkeys/signin/options',
  '/passkeys/signin',
  '/passkeys/signup/options',
  '/passkeys/signup',
  '/passkeys/setup/options',
  '/passkeys/setup',
];

/** The web app's passkey and sign-in requests, on the session and its CSRF token. */
const SESSION_JSON = [
  '/app/api/passkeys/options',
  '/app/api/passkeys',
  '/app/api/passkeys/remove',
  '/app/api/password-sign-in',
  '/app/api/confirm/options',
  '/app/api/confirm',
];

/** The routes a browser cookie authenticates (or, for sign-in and sign-up, a pre-session cookie). */
const COOKIE_ROUTES = [
  '/signin',
  '/signup',
  '/signout',
  '/consent/:id/decision',
  '/v1/agui/review',
  // Passkeys (docs/passkeys.md): JSON requests of the sign-in and sign-up pages on the
  // pre-session cookie, and of the web app on the session.
  ...PRE_SESSION_JSON,
  ...SESSION_JSON,
];

/** Files that read the browser session: any other file doing so is a new cookie route to cover. */
const SESSION_READERS = [
  'src/surfaces/agui/caller.ts',
  'src/surfaces/shared/session.ts',
  // Reads a session again only for a run that already passed the checks (issue 22, item 9).
  'src/surfaces/shared/stream-credential.ts',
  'src/surfaces/web/app-routes.ts',
  'src/surfaces/web/authorize-routes.ts',
  'src/surfaces/web/consent-routes.ts',
  'src/surfaces/web/passkey-routes.ts',
  // The person's receipts: GET only (a list and a download), nothing changes.
  'src/surfaces/web/receipt-routes.ts',
  'src/surfaces/web/signin-routes.ts',
];

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type Cookies = Record<string, string>;

/** One credential pair an attempt presents: a CSRF token and the cookies beside it. */
interface Credentials {
  readonly token: string;
  readonly cookies: Cookies;
}

/** A fresh genuine request for one route, the credentials to vary, and a check of its effect. */
interface Setup {
  readonly genuine: Credentials;
  /** The token of another session (or another pre-session form), with the genuine cookies. */
  readonly other: Credentials;
  /** A token whose session has ended (or whose form was used), with what the browser holds now. */
  readonly ended: Credentials;
  send(token: string | undefined, cookies: Cookies, headers: Record<string, string>): Promise<Response>;
  /** Whether the request did what it asks for (the check reads the store or the session). */
  took(res: Response): Promise<boolean>;
}

interface Target {
  readonly route: string;
  setup(): Promise<Setup>;
  /**
   * Its genuine request needs what only a browser's authenticator makes (a passkey answer), so the
   * control shows the request gets past the CSRF checks (to the passkey's own refusal), and
   * "took effect" means exactly that.
   */
  readonly guardOnly?: true;
  /** Guarded by the pre-session cookie (no cookie: 403, as for sign-in), not by a session. */
  readonly preSession?: true;
}

/**
 * Whether a request got past the CSRF checks: anything but their refusals (401 no session, 403
 * cross-site or a bad token) and the rate limit. Past them, a request without a passkey answer is
 * refused for that (400), never with 401 or 403.
 */
function pastTheGuard(res: Response): boolean {
  return res.status !== 401 && res.status !== 403 && res.status !== 429;
}

describe('CSRF on every cookie-authenticated request', () => {
  let p: TestProvider;
  let other: SignedIn;
  let seq = 0;
  before(async () => {
    p = await startTestProvider({ env: { PPX_ENABLE_SIGNUP: '1' } });
    await accountSignedIn(p, 'csrf-victim', DEMO_SUBJECT);
    other = await accountSignedIn(p, 'csrf-other');
  });
  after(() => p.close());

  /** A new session of the victim. */
  const victim = () => newSession(p, DEMO_SUBJECT);

  /** Credentials of the victim after a session of theirs ended: its token, a newer session's cookie. */
  async function endedSession(): Promise<Credentials> {
    const old = await victim();
    const out = await post(p, '/signout', {
      fields: [['csrf', old.csrf]],
      cookies: { ppx_session: old.session },
    });
    assert.equal(out.status, 303);
    const now = await victim();
    return { token: old.csrf, cookies: { ppx_session: now.session } };
  }

  /** A pre-session form that was used to sign in: its token, and only the cookie the browser now has. */
  async function usedForm(): Promise<Credentials> {
    const used = await preSessionForm(p);
    const r = await post(p, '/signin', {
      fields: [
        ['csrf', used.token],
        ['username', 'csrf-victim'],
        ['password', 'csrf-victim-password-1'],
      ],
      cookies: { ppx_csrf: used.cookie },
    });
    assert.equal(r.status, 303);
    // The sign-in clears the pre-session cookie (Max-Age=0): the browser keeps only the session.
    assert.ok(r.headers.getSetCookie().some((l) => /^ppx_csrf=;.*Max-Age=0/i.test(l)));
    return { token: used.token, cookies: { ppx_session: cookieFrom(r, 'ppx_session')! } };
  }

  async function sessionSetup(
    send: (token: string | undefined, cookies: Cookies, headers: Record<string, string>) => Promise<Response>,
    took: (res: Response, me: { session: string }) => Promise<boolean>,
  ): Promise<Setup> {
    const me = await victim();
    return {
      genuine: { token: me.csrf, cookies: { ppx_session: me.session } },
      other: { token: other.csrf, cookies: { ppx_session: me.session } },
      ended: await endedSession(),
      send,
      took: (res) => took(res, me),
    };
  }

  const TARGETS: Target[] = [
    {
      route: '/signin',
      async setup() {
        const form = await preSessionForm(p);
        const another = await preSessionForm(p);
        return {
          genuine: { token: form.token, cookies: { ppx_csrf: form.cookie } },
          other: { token: another.token, cookies: { ppx_csrf: form.cookie } },
          ended: await usedForm(),
          send: (token, cookies, headers) =>
            post(p, '/signin', {
              fields: [
                ...(token !== undefined ? [['csrf', token] as [string, string]] : []),
                ['username', 'csrf-victim'],
                ['password', 'csrf-victim-password-1'],
              ],
              cookies,
              headers,
            }),
          took: async (res) => cookieFrom(res, 'ppx_session') !== undefined,
        };
      },
    },
    {
      route: '/signup',
      async setup() {
        const form = await preSessionForm(p, '/signup');
        const another = await preSessionForm(p, '/signup');
        const username = `newcomer-${++seq}`;
        return {
          genuine: { token: form.token, cookies: { ppx_csrf: form.cookie } },
          other: { token: another.token, cookies: { ppx_csrf: form.cookie } },
          ended: await usedForm(),
          send: (token, cookies, headers) =>
            post(p, '/signup', {
              fields: [
                ...(token !== undefined ? [['csrf', token] as [string, string]] : []),
                ['username', username],
                ['password', 'a-new-password'],
                ['password_again', 'a-new-password'],
              ],
              cookies,
              headers,
            }),
          took: async () => (await p.deps.store.getSubjectByUsername(username)) !== undefined,
        };
      },
    },
    {
      route: '/signout',
      setup: () =>
        sessionSetup(
          (token, cookies, headers) =>
            post(p, '/signout', {
              fields: token !== undefined ? [['csrf', token]] : [],
              cookies,
              headers,
            }),
          async (_res, me) => !(await sessionAlive(p, me.session)),
        ),
    },
    {
      route: '/consent/:id/decision',
      async setup() {
        const req = await requestConsent(p);
        const path = `/consent/${req.grant_request_id}/decision`;
        return sessionSetup(
          (token, cookies, headers) =>
            post(p, path, {
              fields: [
                ...(token !== undefined ? [['csrf', token] as [string, string]] : []),
                ['decision', 'reject'],
              ],
              cookies,
              headers,
            }),
          async () => (await p.deps.store.getGrantRequest(req.grant_request_id))?.status !== 'pending',
        );
      },
    },
    {
      route: '/v1/agui/review',
      setup: () =>
        sessionSetup(
          (token, cookies, headers) =>
            post(p, '/v1/agui/review', {
              json: { threadId: 't', runId: `r${++seq}`, messages: [], forwardedProps: { follow: false } },
              cookies,
              headers: { ...(token !== undefined ? { 'x-csrf-token': token } : {}), ...headers },
            }),
          // A run opened on the session: it answers with the event stream.
          async (res) => res.status === 200,
        ),
    },
    ...PRE_SESSION_JSON.map(
      (route): Target => ({
        route,
        guardOnly: true,
        preSession: true,
        async setup() {
          const form = await preSessionForm(p);
          const another = await preSessionForm(p);
          return {
            genuine: { token: form.token, cookies: { ppx_csrf: form.cookie } },
            other: { token: another.token, cookies: { ppx_csrf: form.cookie } },
            ended: await usedForm(),
            send: (token, cookies, headers) =>
              post(p, route, {
                json: { ...(token !== undefined ? { csrf: token } : {}), username: `passkey-${++seq}` },
                cookies,
                headers,
              }),
            took: async (res) => pastTheGuard(res),
          };
        },
      }),
    ),
    ...SESSION_JSON.map(
      (route): Target => ({
        route,
        guardOnly: true,
        setup: () =>
          sessionSetup(
            (token, cookies, headers) =>
              post(p, route, {
                // Asks to keep password sign-in on (a change that changes nothing), or the
                // passkey requests, which fail after the guard for want of a passkey answer.
                json: { on: true },
                cookies,
                headers: { ...(token !== undefined ? { 'x-csrf-token': token } : {}), ...headers },
              }),
            async (res) => pastTheGuard(res),
          ),
      }),
    ),
  ];

  it('the route table has no cookie-carried state-changing route this file does not attack', () => {
    const app = createApp(p.deps, { bodyLimitBytes: 1 << 20, log: () => undefined, signupEnabled: true });
    const bearer = new Set([...ROUTES.map((r) => r.http.path), ...BACK_CHANNEL_PATHS, '/mcp', '/a2a']);
    const changing = [...new Set(app.routes.filter((r) => STATE_CHANGING.has(r.method)).map((r) => r.path))];
    const unknown = changing.filter((path) => !COOKIE_ROUTES.includes(path) && !bearer.has(path));
    assert.deepEqual(
      unknown,
      [],
      'a new state-changing route: add it to COOKIE_ROUTES and TARGETS, or to the bearer set',
    );
    for (const route of COOKIE_ROUTES) assert.ok(changing.includes(route), `${route} is still a route`);
    assert.deepEqual(TARGETS.map((t) => t.route).sort(), [...COOKIE_ROUTES].sort());
    // No bearer route shares a path with a cookie route (a cookie route must not be bearer-only too).
    for (const route of COOKIE_ROUTES) assert.ok(!bearer.has(route) || route === '/v1/agui/review', route);
  });

  it('only the known files read the browser session', () => {
    const readers: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (
          path.endsWith('.ts') &&
          /\bcurrentSession\(|\bsessionFrom\(/.test(readFileSync(path, 'utf8'))
        )
          readers.push(relative(process.cwd(), path));
      }
    };
    walk(join(process.cwd(), 'src/surfaces'));
    assert.deepEqual(readers.sort(), SESSION_READERS);
  });

  it('every form a page renders posts to a covered route and carries a CSRF token', async () => {
    const me = await victim();
    const cookie = `ppx_session=${me.session}`;
    const req = await requestConsent(p);
    const { challenge } = pkce();
    const detail = (id: string, domain: string) => ({
      type: 'ppx_grant',
      detail_id: id,
      purposes: ['recommendation'],
      allowed_domains: [domain],
      allowed_namespaces: ['core', domain],
      allowed_operations: ['read'],
    });
    const authorize = await get(
      codeRequest(p, 'fragrance-demo', challenge, {
        redirect_uri: 'http://localhost:5173/callback',
        authorization_details: JSON.stringify([detail('a', 'fragrance'), detail('b', 'travel')]),
        resource: p.deps.provider.baseUrl,
        scope: undefined,
      }),
      cookie,
    );
    assert.equal(authorize.status, 302, await authorize.text());
    const packagePath = authorize.headers.get('location')!;
    const pages: [string, string | undefined][] = [
      ['/signin', undefined],
      ['/signup', undefined],
      ['/signin', cookie],
      [`/consent/${req.grant_request_id}`, cookie],
      [`/consent/${req.grant_request_id}`, undefined],
      [packagePath, cookie],
      ['/consent/gr_nothing-here', cookie],
    ];
    const seen = new Set<string>();
    for (const [path, withCookie] of pages) {
      const html = await (await get(p.url + path, withCookie)).text();
      const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)];
      assert.ok(forms.length > 0, `${path} has a form`);
      for (const [, attrs, inner] of forms) {
        assert.match(attrs!, /\bmethod="post"/, `${path}: every form posts`);
        const action = /\baction="([^"]+)"/.exec(attrs!)?.[1] ?? '';
        const route = action.replace(/^\/consent\/[^/]+\/decision$/, '/consent/:id/decision');
        assert.ok(COOKIE_ROUTES.includes(route), `${path}: a form posts to ${action}`);
        assert.match(
          inner!,
          /<input type="hidden" name="csrf" value="[A-Za-z0-9_-]{43}">/,
          `${path} → ${action}`,
        );
        seen.add(route);
      }
    }
    assert.deepEqual([...seen].sort(), ['/consent/:id/decision', '/signin', '/signout', '/signup']);
  });

  it('outside the cookie routes a session cookie carries no authority: bearer routes answer 401', async () => {
    const me = await victim();
    const sameOrigin = {
      origin: new URL(p.url).origin,
      'sec-fetch-site': 'same-origin',
      'x-csrf-token': me.csrf,
    };
    const checked: string[] = [];
    for (const route of ROUTES) {
      if (route.auth !== 'bearer' || route.http.method === 'GET') continue;
      const path = route.http.path.replace(/:(\w+)/g, 'x');
      const r = await fetch(p.url + path, {
        method: route.http.method,
        headers: { cookie: `ppx_session=${me.session}`, 'content-type': 'application/json', ...sameOrigin },
        body: route.http.method === 'DELETE' ? undefined : '{}',
      });
      assert.equal(r.status, 401, `${route.http.method} ${route.http.path}`);
      checked.push(route.http.path);
    }
    for (const path of ['/mcp', '/a2a', '/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      const r = await fetch(p.url + path, {
        method: 'POST',
        headers: {
          cookie: `ppx_session=${me.session}`,
          'content-type': path.startsWith('/oauth')
            ? 'application/x-www-form-urlencoded'
            : 'application/json',
          accept: 'application/json, text/event-stream',
          ...sameOrigin,
        },
        body: path.startsWith('/oauth') ? 'token=x&grant_type=refresh_token&refresh_token=x' : '{}',
      });
      assert.equal(r.status, 401, path);
    }
    assert.ok(checked.length >= 10, `${checked.length} bearer routes checked`);
  });

  const ATTEMPTS: {
    what: string;
    creds: (s: Setup) => { token: string | undefined; cookies: Cookies };
    headers?: Record<string, string>;
    /** Words the refusal must say (the cross-site checks name the reason). */
    says?: RegExp;
  }[] = [
    { what: 'no CSRF token', creds: (s) => ({ token: undefined, cookies: s.genuine.cookies }) },
    { what: 'an empty token', creds: (s) => ({ token: '', cookies: s.genuine.cookies }) },
    {
      what: 'a wrong token of the same length',
      creds: (s) => ({ token: flipLast(s.genuine.token), cookies: s.genuine.cookies }),
    },
    { what: 'the token of another session', creds: (s) => s.other },
    { what: 'a token replayed after its session ended (or its form was used)', creds: (s) => s.ended },
    {
      what: 'a foreign Origin',
      creds: (s) => s.genuine,
      headers: { origin: 'http://evil.example' },
      says: /another origin/,
    },
    {
      what: 'Origin: null from another site',
      creds: (s) => s.genuine,
      headers: { origin: 'null', 'sec-fetch-site': 'cross-site' },
      says: /another site/,
    },
    {
      what: 'a foreign Referer and no Origin',
      creds: (s) => s.genuine,
      headers: { referer: 'http://evil.example/page' },
      says: /another (site|origin)/,
    },
    {
      what: 'Sec-Fetch-Site: cross-site',
      creds: (s) => s.genuine,
      headers: { 'sec-fetch-site': 'cross-site' },
      says: /another site/,
    },
    {
      what: 'Sec-Fetch-Site: same-site (another origin of this site)',
      creds: (s) => s.genuine,
      headers: { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' },
      says: /another (site|origin)/,
    },
    { what: 'without the cookie', creds: (s) => ({ token: s.genuine.token, cookies: {} }) },
  ];

  for (const target of TARGETS) {
    describe(`POST ${target.route}`, () => {
      it(
        target.guardOnly
          ? 'the genuine request gets past the CSRF checks (control)'
          : 'the genuine request takes effect (control)',
        async () => {
          const s = await target.setup();
          const res = await s.send(s.genuine.token, s.genuine.cookies, { origin: new URL(p.url).origin });
          if (!target.guardOnly) assert.ok(res.status === 200 || res.status === 303, `${res.status}`);
          assert.ok(await s.took(res), `the genuine request took effect (${res.status})`);
        },
      );
      for (const attempt of ATTEMPTS) {
        it(`refuses ${attempt.what}, and nothing happens`, async () => {
          const s = await target.setup();
          const { token, cookies } = attempt.creds(s);
          const res = await s.send(token, cookies, attempt.headers ?? {});
          const text = await res.text();
          const noCookie = Object.keys(cookies).length === 0;
          if (noCookie && target.route === '/signout') {
            // Nothing to sign out of: straight to the sign-in page.
            assert.equal(res.status, 303);
            assert.equal(res.headers.get('location'), '/signin');
          } else if (
            noCookie &&
            target.route !== '/signin' &&
            target.route !== '/signup' &&
            !target.preSession
          ) {
            assert.equal(res.status, 401, text);
          } else {
            assert.equal(res.status, 403, text);
          }
          if (attempt.says) assert.match(text, attempt.says);
          assert.equal(cookieFrom(res, 'ppx_session'), undefined, 'no session is opened');
          assert.equal(await s.took(res), false, 'the request had no effect');
        });
      }
    });
  }

  it('a consent decision replayed after it was made changes nothing (409)', async () => {
    const me = await victim();
    const req = await requestConsent(p);
    const path = `/consent/${req.grant_request_id}/decision`;
    const decide = (decision: string) =>
      post(p, path, {
        fields: [
          ['csrf', me.csrf],
          ['decision', decision],
        ],
        cookies: { ppx_session: me.session },
      });
    assert.equal((await decide('reject')).status, 303);
    assert.equal((await decide('approve')).status, 409);
    assert.equal((await p.deps.store.getGrantRequest(req.grant_request_id))?.status, 'rejected');
  });
});

describe('the cookies the pages set', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
    await accountSignedIn(p, 'cookie-user', DEMO_SUBJECT);
  });
  after(() => p.close());

  function attributes(line: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const part of line.split(';').slice(1)) {
      const [k, v] = part.trim().split('=');
      out.set(k!.toLowerCase(), v ?? '');
    }
    return out;
  }

  /** Sign-in form, sign-in, sign-out against `app`: every Set-Cookie line, by step. */
  async function cookieLines(request: (path: string, init?: RequestInit) => Promise<Response>) {
    const form = await request('/signin');
    const pre = form.headers.getSetCookie();
    const token = hiddenField(await form.text(), 'csrf')!;
    const signedIn = await request('/signin', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre[0]!.split(';')[0]! },
      body: new URLSearchParams({ csrf: token, username: 'cookie-user', password: 'cookie-user-password-1' }),
    });
    assert.equal(signedIn.status, 303);
    const sessionLine = signedIn.headers.getSetCookie().find((l) => /^(__Host-)?ppx_session=/.test(l))!;
    const page = await request('/signin', { headers: { cookie: sessionLine.split(';')[0]! } });
    const csrf = hiddenField(await page.text(), 'csrf')!;
    const out = await request('/signout', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: sessionLine.split(';')[0]! },
      body: new URLSearchParams({ csrf }),
    });
    assert.equal(out.status, 303);
    return { pre, signedIn: signedIn.headers.getSetCookie(), out: out.headers.getSetCookie() };
  }

  it('over http: the session is HttpOnly SameSite=Lax, the pre-session token HttpOnly SameSite=Strict, no Domain', async () => {
    const lines = await cookieLines((path, init) => fetch(p.url + path, init));
    const all = [...lines.pre, ...lines.signedIn, ...lines.out];
    for (const line of all) {
      const a = attributes(line);
      assert.equal(a.get('path'), '/', line);
      assert.ok(!a.has('domain'), `no Domain: ${line}`);
      // A cookie being cleared (empty, Max-Age=0) holds nothing to protect.
      if (a.get('max-age') !== '0') assert.ok(a.has('httponly'), `HttpOnly: ${line}`);
      assert.ok(!a.has('secure'), `no Secure over http: ${line}`);
    }
    const pre = attributes(lines.pre.find((l) => l.startsWith('ppx_csrf='))!);
    assert.equal(pre.get('samesite'), 'Strict');
    assert.equal(pre.get('max-age'), '3600');
    const session = attributes(lines.signedIn.find((l) => l.startsWith('ppx_session='))!);
    assert.equal(session.get('samesite'), 'Lax');
    assert.equal(session.get('max-age'), String(8 * 3600));
    // Signing in clears the pre-session token; signing out clears the session.
    assert.ok(lines.signedIn.some((l) => /^ppx_csrf=;/.test(l) && attributes(l).get('max-age') === '0'));
    assert.ok(lines.out.some((l) => /^ppx_session=;/.test(l) && attributes(l).get('max-age') === '0'));
  });

  it('over https: __Host- names, Secure, Path=/ and no Domain on every cookie', async () => {
    const https = createWebApp(
      { ...p.deps, provider: { ...p.deps.provider, baseUrl: 'https://ppx.example' } },
      { log: () => undefined },
    );
    const lines = await cookieLines((path, init) =>
      Promise.resolve(https.request(`https://ppx.example${path}`, init)),
    );
    for (const line of [...lines.pre, ...lines.signedIn, ...lines.out]) {
      assert.match(line, /^__Host-ppx_(session|csrf)=/, line);
      const a = attributes(line);
      assert.ok(a.has('secure'), line);
      if (a.get('max-age') !== '0') assert.ok(a.has('httponly'), line);
      assert.equal(a.get('path'), '/');
      assert.ok(!a.has('domain'), line);
    }
  });
});

describe('a cross-site form post in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };
  before(async () => {
    p = await startTestProvider();
    await accountSignedIn(p, 'browser-victim', DEMO_SUBJECT);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });
  beforeEach(() => browser.context.clearCookies());

  /** Signs in through the provider's own form, as the person would; returns their CSRF token. */
  async function signInInBrowser(page: Page): Promise<string> {
    await page.goto(`${p.url}/signin`);
    await page.fill('#username', 'browser-victim');
    await page.fill('#password', 'browser-victim-password-1');
    await Promise.all([page.waitForURL(/\/app|\/signin/), page.click('button:has-text("Sign in")')]);
    await page.goto(`${p.url}/signin`);
    const csrf = await page.getAttribute('form[action="/signout"] input[name="csrf"]', 'value');
    assert.ok(csrf, 'signed in: the page carries the session token');
    return csrf;
  }

  /** An attacker page that posts the decision form as soon as it loads, with the victim's token. */
  function forgery(action: string, csrf: string): string {
    return `<!doctype html><form id="f" method="post" action="${escapeForPage(action)}">
<input name="csrf" value="${escapeForPage(csrf)}"><input name="decision" value="approve"></form>
<script>document.getElementById('f').submit()</script>`;
  }

  for (const [host, expected] of [
    ['localhost', 'cross-site: the session cookie stays home (SameSite=Lax)'],
    ['127.0.0.1', 'same site, another origin: the cookie goes along, Sec-Fetch-Site refuses'],
  ] as const) {
    it(`a page on ${host} (another ${host === 'localhost' ? 'site' : 'port'}) cannot decide a consent request: ${expected}`, async () => {
      const page = await browser.context.newPage();
      const csrf = await signInInBrowser(page);
      const req = await requestConsent(p);
      const action = `${p.url}/consent/${req.grant_request_id}/decision`;
      const site = await serveSite(host, () => forgery(action, csrf));
      try {
        const answered = page.waitForResponse((r) => r.url() === action && r.request().method() === 'POST');
        await page.goto(`${site.origin}/`);
        const res = await answered;
        const sent = await res.request().allHeaders();
        assert.equal(sent['origin'], site.origin);
        if (host === 'localhost') {
          assert.equal(sent['sec-fetch-site'], 'cross-site');
          assert.doesNotMatch(sent['cookie'] ?? '', /ppx_session=/, 'SameSite=Lax keeps the cookie home');
        } else {
          assert.equal(sent['sec-fetch-site'], 'same-site');
          assert.match(sent['cookie'] ?? '', /ppx_session=/, 'a same-site post carries the cookie');
        }
        assert.equal(res.status(), 403);
        assert.match(await res.text(), /sent from another site, so it was refused/);
        assert.equal((await p.deps.store.getGrantRequest(req.grant_request_id))?.status, 'pending');
        assert.deepEqual(site.hits, ['GET /'], 'the attacker page was served once');
      } finally {
        await page.close();
        await site.close();
      }
    });
  }

  it('a script on another origin cannot open a review run on the session (the web app’s own POST)', async () => {
    const page = await browser.context.newPage();
    const csrf = await signInInBrowser(page);
    const url = `${p.url}/v1/agui/review`;
    const body = JSON.stringify({
      threadId: 't',
      runId: 'r',
      messages: [],
      forwardedProps: { follow: false },
    });
    // A "simple" request (no preflight) that carries the cookie (same site) and the stolen token
    // in the body, where the server never looks for it; and one with the header, which needs a
    // CORS preflight the provider does not grant.
    const site = await serveSite(
      '127.0.0.1',
      () => `<!doctype html><script>
fetch(${JSON.stringify(url)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
  headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(body)} }).catch(() => {});
fetch(${JSON.stringify(url)}, { method: 'POST', credentials: 'include',
  headers: { 'content-type': 'application/json', 'x-csrf-token': ${JSON.stringify(csrf)} }, body: ${JSON.stringify(body)} })
  .then(() => { window.__read = true; }, () => { window.__blocked = true; });
</script>`,
    );
    try {
      const simple = page.waitForResponse((r) => r.url() === url && r.request().method() === 'POST');
      await page.goto(`${site.origin}/`);
      const res = await simple;
      // Refused: from another origin, and without the token in its header (Chromium does not
      // report a no-cors request's final headers to playwright, so only the answer is checked).
      assert.equal(res.status(), 403);
      await page.waitForFunction(() => {
        const w = globalThis as { __read?: boolean; __blocked?: boolean };
        return w.__read === true || w.__blocked === true;
      });
      assert.equal(await page.evaluate(() => (globalThis as { __read?: boolean }).__read), undefined);
    } finally {
      await page.close();
      await site.close();
    }
  });
});

/** The same token with its last character changed (still base64url, same length). */
function flipLast(token: string): string {
  return token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
}
