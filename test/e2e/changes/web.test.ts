import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { formFields } from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { hiddenField, requestConsent, signInOverHttp } from '../../support/web-session.ts';
import { type Watch, watch } from './helpers.ts';

// The web pages that write: the consent page's decision POST announces the decision (and the
// grant it creates) by the time the redirect arrives; a sign-up creates a profile; sessions
// (sign-in, sign-out) are not changes to anyone's data and announce nothing.

const USER = { username: 'changes-user', password: 'changes-password-1' };

describe('change events of the web pages', () => {
  let p: TestProvider;
  let w: Watch;
  let cookie: string;
  before(async () => {
    p = await startTestProvider({ env: { PPX_ENABLE_SIGNUP: '1' } });
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    w = await watch(p);
  });
  after(async () => {
    w.close();
    await p.close();
  });

  it('signing in announces nothing', async () => {
    const { session } = await signInOverHttp(p.url, USER.username, USER.password);
    cookie = `ppx_session=${session}`;
    await w.quiet();
  });

  /** The consent page's form as the browser would submit it, with `decision`. */
  async function decideOnPage(grantRequestId: string, decision: 'approve' | 'reject') {
    const page = await fetch(`${p.url}/consent/${grantRequestId}`, { headers: { cookie } });
    const html = await page.text();
    assert.equal(page.status, 200, html);
    const form = /<form method="post" action="(\/consent\/[^"]+\/decision)">([\s\S]*?)<\/form>/.exec(html);
    assert.ok(form, 'the page has a decision form');
    const fields = formFields(form[2]!);
    fields.set('decision', decision);
    return fetch(new URL(form[1]!, p.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: p.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
    });
  }

  it('approving on the consent page: grant_created and consent_decided; posting it again nothing', async () => {
    const req = await requestConsent(p);
    await w.expect({ kind: 'consent_requested', ids: { grant_request_ids: [req.grant_request_id] } });
    const r = await decideOnPage(req.grant_request_id, 'approve');
    assert.equal(r.status, 303, await r.text());
    const grantId = (await p.deps.store.getGrantRequest(req.grant_request_id))?.grant_id;
    assert.ok(grantId);
    await w.expect(
      { kind: 'grant_created', ids: { grant_ids: [grantId] }, grants: [grantId] },
      {
        kind: 'consent_decided',
        ids: { grant_request_ids: [req.grant_request_id], grant_ids: [grantId] },
        grants: [grantId],
      },
    );
    const again = await fetch(`${p.url}/consent/${req.grant_request_id}/decision`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: p.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: await csrfToken(),
        decision: 'approve',
        purpose: 'recommendation',
        domain: 'fragrance',
        namespace: 'core',
        operation: 'read',
      }),
    });
    assert.equal(again.status, 409, 'a decided request is not decided again');
    await w.quiet();
  });

  it('declining on the consent page: consent_decided without a grant', async () => {
    const req = await requestConsent(p);
    await w.expect({ kind: 'consent_requested' });
    const r = await decideOnPage(req.grant_request_id, 'reject');
    assert.equal(r.status, 303, await r.text());
    await w.expect({
      kind: 'consent_decided',
      ids: { grant_request_ids: [req.grant_request_id] },
      grants: [],
    });
  });

  it('signing out announces nothing', async () => {
    const r = await fetch(`${p.url}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: p.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: await csrfToken() }),
    });
    assert.equal(r.status, 303);
    await w.quiet();
  });

  it('signing up: profile_created for the new subject; a taken username nothing', async () => {
    const form = await fetch(`${p.url}/signup`);
    assert.equal(form.status, 200);
    const pre = form.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = hiddenField(await form.text(), 'csrf')!;
    const submit = (username: string) =>
      fetch(`${p.url}/signup`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre, origin: p.url },
        body: new URLSearchParams({
          csrf: token,
          username,
          password: 'a-new-password',
          password_again: 'a-new-password',
        }),
      });
    assert.equal((await submit('newcomer')).status, 303);
    const subject = await p.deps.store.getSubjectByUsername('newcomer');
    assert.ok(subject);
    await w.expect({ kind: 'profile_created', subject: subject.subject_id, ids: {}, grants: [] });
    assert.equal((await submit('newcomer')).status, 409);
    await w.quiet();
  });

  /** The signed-in page's CSRF token. */
  async function csrfToken(): Promise<string> {
    const page = await fetch(`${p.url}/signin`, { headers: { cookie } });
    return hiddenField(await page.text(), 'csrf')!;
  }
});
