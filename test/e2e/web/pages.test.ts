import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { createWebApp } from '../../../src/surfaces/web/app.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import {
  cookieFrom,
  hiddenField,
  requestConsent,
  signedInForms,
  signInOverHttp,
} from '../../support/web-session.ts';

// The web pages over plain HTTP: hardening headers, CSRF and cross-site refusals, no open
// redirect, cookies. The browser flows are in consent-browser.test.ts.

const USER = { username: 'page-user', password: 'page-password-1' };

describe('web pages over HTTP', () => {
  let p: TestProvider;
  let session: string;
  let csrf: string;
  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    ({ session, csrf } = await signInOverHttp(p.url, USER.username, USER.password));
  });
  after(() => p.close());

  const { get, post, status } = signedInForms(
    () => p,
    () => session,
  );

  function assertHardened(res: Response) {
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const d of [
      "default-src 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'self'",
    ]) {
      assert.ok(csp.includes(d), `${d} in ${csp}`);
    }
    // The sign-in and sign-up pages load the passkey script from this origin (docs/passkeys.md).
    assert.doesNotMatch(csp, /unsafe-inline|script-src (?!'self';)/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  }

  it('every page carries the hardening headers; the consent page may post on to its client only', async () => {
    const req = await requestConsent(p);
    const signin = await get(`/consent/${req.grant_request_id}`, '');
    assert.equal(signin.status, 200);
    assertHardened(signin);
    assert.match(await signin.text(), /action="\/signin"/);
    const consent = await get(`/consent/${req.grant_request_id}`);
    assert.equal(consent.status, 200);
    assertHardened(consent);
    assert.match(
      consent.headers.get('content-security-policy')!,
      /form-action 'self' http:\/\/localhost:5173;/,
    );
    assertHardened(await get('/signin'));
    const css = await get('/web/style.css');
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type')!, /^text\/css/);
  });

  it('the session cookie is HttpOnly, SameSite=Lax, Path=/; __Host- and Secure on https', async () => {
    const res = await fetch(`${p.url}/signin`);
    const preCsrf = cookieFrom(res, 'ppx_csrf')!;
    const signed = await fetch(`${p.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ppx_csrf=${preCsrf}` },
      body: new URLSearchParams({ csrf: hiddenField(await res.text(), 'csrf')!, ...USER }),
    });
    const line = signed.headers.getSetCookie().find((l) => l.startsWith('ppx_session='))!;
    assert.match(line, /HttpOnly/i);
    assert.match(line, /SameSite=Lax/i);
    assert.match(line, /Path=\//);
    assert.doesNotMatch(line, /Secure/i);

    const https = createWebApp(
      { ...p.deps, provider: { ...p.deps.provider, baseUrl: 'https://ppx.example' } },
      { log: () => undefined },
    );
    const form = await https.request('https://ppx.example/signin');
    const pre = form.headers.getSetCookie().find((l) => l.startsWith('__Host-ppx_csrf='))!;
    assert.match(pre, /Secure/);
    const token = hiddenField(await form.text(), 'csrf')!;
    const done = await https.request('https://ppx.example/signin', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre.split(';')[0]! },
      body: new URLSearchParams({ csrf: token, ...USER }),
    });
    assert.equal(done.status, 303);
    const host = done.headers.getSetCookie().find((l) => l.startsWith('__Host-ppx_session='))!;
    assert.match(host, /Secure/);
    assert.match(host, /HttpOnly/i);
    assert.match(host, /Path=\//);
  });

  it('a decision without the CSRF token, or from another site, is refused and the request stays pending', async () => {
    const req = await requestConsent(p);
    const path = `/consent/${req.grant_request_id}/decision`;
    const attempts: [string, [string, string][], Record<string, string>][] = [
      ['no token', [['decision', 'approve']], {}],
      [
        'wrong token',
        [
          ['decision', 'approve'],
          ['csrf', `${csrf}x`],
        ],
        {},
      ],
      [
        'cross-site',
        [
          ['decision', 'approve'],
          ['csrf', csrf],
        ],
        { 'sec-fetch-site': 'cross-site' },
      ],
      [
        'same-site',
        [
          ['decision', 'reject'],
          ['csrf', csrf],
        ],
        { 'sec-fetch-site': 'same-site' },
      ],
      [
        'foreign origin',
        [
          ['decision', 'approve'],
          ['csrf', csrf],
        ],
        { origin: 'http://evil.example' },
      ],
      [
        'null origin, cross-site',
        [
          ['decision', 'approve'],
          ['csrf', csrf],
        ],
        { origin: 'null', 'sec-fetch-site': 'cross-site' },
      ],
    ];
    for (const [what, fields, headers] of attempts) {
      const r = await post(path, fields, headers);
      assert.equal(r.status, 403, what);
      assertHardened(r);
    }
    assert.equal(await status(req.grant_request_id), 'pending');
  });

  it('sign-in never redirects off-site (the web app when no return path is named)', async () => {
    const cases: [string, string][] = [
      ['//evil.example/x', '/app'],
      ['https://evil.example/', '/app'],
      ['/\\evil.example', '/app'],
      ['javascript:alert(1)', '/app'],
      ['/consent/abc?x=1', '/consent/abc?x=1'],
    ];
    for (const [returnTo, expected] of cases) {
      const form = await fetch(`${p.url}/signin`);
      const pre = cookieFrom(form, 'ppx_csrf')!;
      const r = await fetch(`${p.url}/signin`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ppx_csrf=${pre}` },
        body: new URLSearchParams({
          csrf: hiddenField(await form.text(), 'csrf')!,
          return_to: returnTo,
          ...USER,
        }),
      });
      assert.equal(r.status, 303, returnTo);
      assert.equal(r.headers.get('location'), expected, returnTo);
    }
  });

  it('sign-in without the pre-session CSRF cookie is refused and opens no session', async () => {
    const form = await fetch(`${p.url}/signin`);
    const r = await fetch(`${p.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: hiddenField(await form.text(), 'csrf')!, ...USER }),
    });
    assert.equal(r.status, 403);
    assert.equal(cookieFrom(r, 'ppx_session'), undefined);
  });
});
