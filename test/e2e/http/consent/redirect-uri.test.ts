import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerClient } from '../../../../src/operations/accounts/clients.ts';
import { createSubject } from '../../../../src/operations/accounts/subjects-and-sessions.ts';
import {
  approve,
  ask,
  exchange,
  pkce,
  REDIRECT,
  reject,
  requestBody,
} from '../../../support/consent-flow.ts';
import { assertError } from '../../../support/http-api.ts';
import { formFields } from '../../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { signedInForms, signInOverHttp } from '../../../support/web-session.ts';

// consent-v2 without redirect_uri (WIRE-NOTES §2.1, RFC 6749 §3.1.2.3): the client's only
// registered URI is used; a client with several must name one; a client registered with none is
// a back-channel client, whose decision ends on the provider's own page and whose outcome the
// client learns at /v1/consent/token.

const TWO = ['https://two.example/a', 'https://two.example/b'] as const;
const USER = { username: 'redirect-user', password: 'redirect-password-1' };

describe('consent-v2 without redirect_uri', () => {
  let p: TestProvider;
  let session: string;
  before(async () => {
    p = await startTestProvider();
    assert.ok(
      (await registerClient(p.deps, { client_id: 'two-uris', name: 'Two', redirect_uris: [...TWO] })).ok,
    );
    assert.ok((await registerClient(p.deps, { client_id: 'back-channel', name: 'Back Channel App' })).ok);
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: p.subjectId })).ok);
    ({ session } = await signInOverHttp(p.url, USER.username, USER.password));
  });
  after(() => p.close());

  const { get, post, status } = signedInForms(
    () => p,
    () => session,
  );

  function send(over: Record<string, unknown>) {
    const body: Record<string, unknown> = requestBody(p, pkce().challenge, over);
    for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
    return api(p.url, '/v1/consent/request', { body });
  }

  it('a client with one registered URI: that URI is used, and the flow completes', async () => {
    const pending = await ask(p, { redirect_uri: undefined });
    const stored = await p.deps.store.getGrantRequest(pending.id);
    assert.equal(stored?.redirect_uri, REDIRECT);
    const a = await approve(p, pending.id);
    assert.equal(a.status, 200, a.text);
    const back = new URL(a.json.redirect_to);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('grant_request_id'), pending.id);
    assert.equal(back.searchParams.get('decision'), 'approve');
    const t = await exchange(p, pending);
    assert.equal(t.status, 200, t.text);
  });

  it('a client with several registered URIs must name one: 400 invalid_request, naming redirect_uri', async () => {
    const r = await send({ client_id: 'two-uris', redirect_uri: undefined });
    assertError(r, 400, 'invalid_request');
    assert.match(r.json.error_description, /redirect_uri/);
    const named = await send({ client_id: 'two-uris', redirect_uri: TWO[1] });
    assert.equal(named.status, 201, named.text);
  });

  it('a client registered with none is a back-channel client: a URI it names is refused', async () => {
    assertError(
      await send({ client_id: 'back-channel', redirect_uri: REDIRECT }),
      400,
      'invalid_redirect_uri',
    );
  });

  it('back-channel, decided over the API: redirect_to is the provider page, the exchange works', async () => {
    const pending = await ask(p, { client_id: 'back-channel', redirect_uri: undefined });
    assert.equal((await p.deps.store.getGrantRequest(pending.id))?.redirect_uri, undefined);
    const a = await approve(p, pending.id);
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.redirect_to, `${p.url}/consent/${pending.id}/done`);
    const t = await exchange(p, pending);
    assert.equal(t.status, 200, t.text);
    assert.equal(t.json.token_type, 'Bearer');

    const refused = await ask(p, { client_id: 'back-channel', redirect_uri: undefined });
    const r = await reject(p, refused.id);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.redirect_to, `${p.url}/consent/${refused.id}/done`);
    assertError(await exchange(p, refused), 400, 'invalid_grant');
  });

  it('back-channel, decided on the page: it ends on the provider page, in plain words', async () => {
    const pending = await ask(p, { client_id: 'back-channel', redirect_uri: undefined });
    const page = await get(`/consent/${pending.id}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Back Channel App/);
    assert.doesNotMatch(html, /you will be sent back there/);
    assert.match(html, /will not be sent anywhere/);
    assert.match(page.headers.get('content-security-policy') ?? '', /form-action 'self';/);

    const form = /<form method="post" action="\/consent\/[^"]+\/decision">([\s\S]*?)<\/form>/.exec(html);
    assert.ok(form, 'the consent page has a decision form');
    const decided = await post(`/consent/${pending.id}/decision`, [
      ...formFields(form[1]!),
      ['decision', 'approve'],
    ]);
    assert.equal(decided.status, 303, await decided.text());
    const to = decided.headers.get('location')!;
    assert.equal(to, `${p.url}/consent/${pending.id}/done`);
    assert.equal(await status(pending.id), 'approved');

    const done = await get(new URL(to).pathname);
    assert.equal(done.status, 200);
    const text = await done.text();
    assert.match(text, /You allowed Back Channel App/);
    assert.match(text, /close this page/);
    assert.equal(done.headers.get('cache-control'), 'no-store');
    assert.equal((await exchange(p, pending)).status, 200);
  });

  it('the provider page tells nothing to someone not signed in, and says a rejection plainly', async () => {
    const pending = await ask(p, { client_id: 'back-channel', redirect_uri: undefined });
    const before = await get(`/consent/${pending.id}/done`, '');
    assert.equal(before.status, 200);
    assert.doesNotMatch(await before.text(), /Back Channel App/);
    assert.equal((await reject(p, pending.id)).status, 200);
    const anonymous = await (await get(`/consent/${pending.id}/done`, '')).text();
    assert.doesNotMatch(anonymous, /Back Channel App|You said no/);
    assert.match(anonymous, /close this page/);
    const mine = await (await get(`/consent/${pending.id}/done`)).text();
    assert.match(mine, /You said no to Back Channel App/);
    assert.match(mine, /Nothing was shared/);
  });

  it('a pending request opened at the provider page goes back to the consent page', async () => {
    const pending = await ask(p, { client_id: 'back-channel', redirect_uri: undefined });
    const r = await get(`/consent/${pending.id}/done`);
    assert.equal(r.status, 303);
    assert.equal(r.headers.get('location'), `/consent/${pending.id}`);
  });
});
