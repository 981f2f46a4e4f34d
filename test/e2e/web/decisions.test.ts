import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { keysOfNamespace } from '../../../src/surfaces/shared/describe.ts';
import { createWebApp } from '../../../src/surfaces/web/app.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import {
  CALLBACK,
  hiddenField,
  requestConsent,
  signedInForms,
  signInOverHttp,
} from '../../support/web-session.ts';

// Deciding through the consent form over plain HTTP (narrowing, refusals, escaping), signing out,
// form size limits and the sign-up switch. The browser flows are in consent-browser.test.ts.

const USER = { username: 'page-user', password: 'page-password-1' };

describe('consent decisions and accounts over HTTP', () => {
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

  it('client-controlled text is escaped', async () => {
    const name = '<script>alert(1)</script> & "Evil" Co';
    assert.ok((await registerClient(p.deps, { client_id: 'evil-app', name, redirect_uris: [CALLBACK] })).ok);
    const req = await requestConsent(p, { client_id: 'evil-app' });
    const page = await (await get(`/consent/${req.grant_request_id}`)).text();
    assert.ok(!page.includes('<script>'), 'no raw script tag');
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Evil&quot; Co'));
  });

  it('a widening or empty narrowing re-renders the page with the reason; nothing is approved', async () => {
    const req = await requestConsent(p);
    const path = `/consent/${req.grant_request_id}/decision`;
    const base: [string, string][] = [
      ['csrf', csrf],
      ['decision', 'approve'],
      ['purpose', 'recommendation'],
      ['domain', 'fragrance'],
      ['namespace', 'fragrance'],
      ...keysOfNamespace('fragrance').map((k): [string, string] => ['key', k]),
      ['operation', 'read'],
      ['writeback_policy', 'review_required'],
    ];
    const wider = await post(path, [...base, ['cross_domain_transfer', 'allow']]);
    assert.equal(wider.status, 400);
    assert.match(await wider.text(), /looser than/);
    const none = await post(path, [
      ['csrf', csrf],
      ['decision', 'approve'],
      ['domain', 'fragrance'],
      ['namespace', 'core'],
      ['operation', 'read'],
      ['cross_domain_transfer', 'deny'],
      ['writeback_policy', 'forbidden'],
    ]);
    assert.equal(none.status, 400);
    assert.match(await none.text(), /What for: keep at least one item/);
    const longer = await post(path, [...base, ['cross_domain_transfer', 'deny'], ['duration', '400']]);
    assert.equal(longer.status, 400);
    assert.equal(await status(req.grant_request_id), 'pending');

    const ok = await post(path, [...base, ['cross_domain_transfer', 'deny'], ['duration', '7']]);
    assert.equal(ok.status, 303);
    assert.match(ok.headers.get('location')!, /^http:\/\/localhost:5173\/callback\?.*decision=approve/);
    const grantId = (await p.deps.store.getGrantRequest(req.grant_request_id))?.grant_id;
    const grant = await p.deps.store.getGrant(grantId!);
    assert.deepEqual(grant?.allowed_namespaces, ['fragrance']);
    assert.deepEqual(grant?.purposes, ['recommendation']);
    assert.equal(grant?.cross_domain_transfer, 'deny');
    assert.ok(Date.parse(grant!.expires_at!) < Date.now() + 8 * 86_400_000);

    const again = await post(path, base);
    assert.equal(again.status, 409, 'a decided request is closed');
  });

  it('sign-out needs the token and ends the session', async () => {
    const mine = await signInOverHttp(p.url, USER.username, USER.password);
    const out = (fields: [string, string][]) =>
      fetch(`${p.url}/signout`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `ppx_session=${mine.session}`,
        },
        body: new URLSearchParams(fields),
      });
    assert.equal((await out([])).status, 403);
    assert.equal((await out([['csrf', mine.csrf]])).status, 303);
    const after = await get('/signin', `ppx_session=${mine.session}`);
    assert.match(await after.text(), /action="\/signin"/, 'signed out');
  });

  it('a body labelled multipart that is not is refused like any unverified form, never a 500', async () => {
    for (const [path, cookie] of [
      ['/signin', undefined],
      ['/signout', `ppx_session=${session}`],
    ] as const) {
      for (const type of ['multipart/form-data', 'multipart/form-data; boundary=zz']) {
        const r = await fetch(`${p.url}${path}`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': type,
            origin: new URL(p.url).origin,
            ...(cookie !== undefined ? { cookie } : {}),
          },
          body: '--zz\r\nbroken',
        });
        assert.ok(r.status === 403 || r.status === 400, `${path} ${type}: ${r.status}`);
        assert.doesNotMatch(await r.text(), /\bat .*\.ts:\d+/);
      }
    }
  });

  it('oversized forms are refused', async () => {
    const r = await post('/signin', [['username', 'x'.repeat(70 * 1024)]]);
    assert.equal(r.status, 413);
  });

  it('sign-up is off unless the operator enables it', async () => {
    assert.equal((await get('/signup')).status, 404);
    const app = createWebApp(p.deps, { log: () => undefined, signupEnabled: true });
    const form = await app.request(`${p.url}/signup`);
    assert.equal(form.status, 200);
    const pre = form.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = hiddenField(await form.text(), 'csrf')!;
    const submit = (username: string) =>
      app.request(`${p.url}/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
        body: new URLSearchParams({
          csrf: token,
          username,
          password: 'a-new-password',
          password_again: 'a-new-password',
        }),
      });
    const created = await submit('newcomer');
    assert.equal(created.status, 303);
    assert.ok(created.headers.getSetCookie().some((l) => l.startsWith('ppx_session=')));
    // As after a sign-in: the pre-session CSRF cookie goes (startSession).
    const preName = pre.split('=')[0]!;
    assert.ok(
      created.headers.getSetCookie().some((l) => l.startsWith(`${preName}=;`) && /Max-Age=0/i.test(l)),
      created.headers.getSetCookie().join(' | '),
    );
    assert.ok(await p.deps.store.getSubjectByUsername('newcomer'));
    assert.equal((await submit('newcomer')).status, 409);
  });
});
