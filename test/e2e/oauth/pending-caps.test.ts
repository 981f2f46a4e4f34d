import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { PENDING_PER_APP, PENDING_PER_PERSON } from '../../../src/operations/consent/pending-caps.ts';
import { pkce as consentPkce, requestBody } from '../../support/consent-flow.ts';
import { codeRequest, get, pkce, publicClient, signedInCookie } from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Issue 22 item 10 on the OAuth authorization path: the person is there, signed in, asking to
// connect this app, so past the per-app cap the app's oldest pending request is withdrawn (the
// newest is the one the person is looking at); past the per-person cap the browser goes back to
// the app with `temporarily_unavailable` (RFC 6749 §4.1.2.1) and nothing is created.

describe('the authorization endpoint under the pending-request caps (issue 22 item 10)', () => {
  let p: TestProvider;
  let cookie: string;
  let clientId: string;
  before(async () => {
    p = await startTestProvider();
    cookie = await signedInCookie(p);
    clientId = await publicClient(p);
  });
  after(() => p.close());

  const now = () => new Date().toISOString();
  const pendingOf = async (client?: string) =>
    (await p.store.listPendingGrantRequestsBySubject(p.subjectId, now())).filter(
      (r) => client === undefined || r.client_id === client,
    );

  async function authorize(client = clientId): Promise<Response> {
    return get(codeRequest(p, client, pkce().challenge), cookie);
  }

  it('past the per-app cap the app’s oldest pending request is withdrawn, and the newest is shown', async () => {
    const ids: string[] = [];
    for (let i = 0; i < PENDING_PER_APP + 2; i++) {
      const r = await authorize();
      assert.equal(r.status, 302);
      const at = new URL(r.headers.get('location')!, p.url);
      assert.match(at.pathname, /^\/consent\/gr_/);
      ids.push(decodeURIComponent(at.pathname.slice('/consent/'.length)));
    }
    const pending = (await pendingOf(clientId)).map((r) => r.grant_request_id);
    assert.deepEqual(pending, ids.slice(-PENDING_PER_APP), 'the newest stay, the oldest were withdrawn');
    const withdrawn = await get(`${p.url}/consent/${ids[0]}`, cookie);
    assert.doesNotMatch(await withdrawn.text(), /<form method="post" action="\/consent\/[^"]+\/decision"/);
  });

  it('past the per-person cap the app gets temporarily_unavailable and nothing is created', async () => {
    for (let i = 0; (await pendingOf()).length < PENDING_PER_PERSON; i++) {
      if (i % PENDING_PER_APP === 0) {
        assert.ok((await registerClient(p.deps, { client_id: `other-${i}`, name: `Other ${i}` })).ok);
      }
      const body = {
        ...requestBody(p, consentPkce().challenge),
        client_id: `other-${i - (i % PENDING_PER_APP)}`,
      };
      delete (body as Record<string, unknown>)['redirect_uri'];
      const r = await api(p.url, '/v1/consent/request', { body });
      assert.equal(r.status, 201, r.text);
    }
    const before = (await pendingOf()).map((r) => r.grant_request_id);
    // An app with nothing pending: it has none of its own to withdraw.
    const r = await authorize(await publicClient(p));
    assert.equal(r.status, 302);
    const back = new URL(r.headers.get('location')!);
    assert.equal(back.origin + back.pathname, 'http://localhost:7777/callback');
    assert.equal(back.searchParams.get('error'), 'temporarily_unavailable');
    assert.equal(back.searchParams.get('state'), 'state-123');
    assert.match(back.searchParams.get('error_description') ?? '', /waiting for an answer/);
    assert.deepEqual(
      (await pendingOf()).map((r) => r.grant_request_id),
      before,
      'nothing was created or withdrawn',
    );
    // An app at its own cap still replaces its oldest request: the person's total stays the same.
    const replaced = await authorize();
    assert.match(new URL(replaced.headers.get('location')!, p.url).pathname, /^\/consent\/gr_/);
    assert.equal((await pendingOf()).length, PENDING_PER_PERSON);
  });
});
