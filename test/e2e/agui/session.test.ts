import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventType, HttpAgent } from '@ag-ui/client';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { oneShot, type RunRecord, reviewUrl } from '../../support/agui-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { signInOverHttp } from '../../support/web-session.ts';

// A review run on the person's signed-in browser session (the cookie /signin sets), with the
// checks every state-changing web form passes: the provider's own origin, and the session's
// CSRF token (here in the x-csrf-token header).

const USER = { username: 'agui-user', password: 'agui-password-1' };

describe('AG-UI review runs on a browser session', () => {
  let p: TestProvider;
  let session: string;
  let csrf: string;
  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    ({ session, csrf } = await signInOverHttp(p.url, USER.username, USER.password));
  });
  after(async () => p.close());

  const sessionHeaders = (extra: Record<string, string> = {}) => ({
    cookie: `ppx_session=${session}`,
    'x-csrf-token': csrf,
    ...extra,
  });
  const post = (headers: Record<string, string>) =>
    api(p.url, '/v1/agui/review', {
      body: JSON.stringify({ threadId: 't', runId: 'r', messages: [], forwardedProps: { follow: false } }),
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('a session from signing in opens a run (HttpAgent), showing the same state as the subject token', async () => {
    const agent = new HttpAgent({
      url: reviewUrl(p),
      headers: sessionHeaders({ origin: p.url, 'sec-fetch-site': 'same-origin' }),
    });
    const record: RunRecord = { events: [] };
    await agent.runAgent(
      { forwardedProps: { follow: false } },
      {
        onEvent: ({ event }) => {
          record.events.push(event);
        },
        onRunFailed: ({ error }) => {
          record.failure = error;
        },
      },
    );
    assert.equal(record.failure, undefined, record.failure?.message);
    assert.deepEqual(
      record.events.map((e) => e.type),
      [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.RUN_FINISHED],
    );
    assert.deepEqual(agent.state as InboxState, (await oneShot(p)).state);
  });

  it('a cross-site request on the session is refused (403), by Sec-Fetch-Site or by Origin', async () => {
    for (const headers of [
      sessionHeaders({ 'sec-fetch-site': 'cross-site' }),
      sessionHeaders({ origin: 'https://evil.example' }),
      sessionHeaders({ 'sec-fetch-site': 'same-site', origin: 'http://sub.localhost' }),
    ]) {
      const r = await post(headers);
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.error, 'access_denied');
      assert.match(r.json.error_description, /another (site|origin)/);
    }
  });

  it('a session without its CSRF token, or with another one, is refused (403)', async () => {
    for (const token of [undefined, 'not-the-token']) {
      const headers: Record<string, string> = { cookie: `ppx_session=${session}` };
      if (token !== undefined) headers['x-csrf-token'] = token;
      const r = await post(headers);
      assert.equal(r.status, 403, r.text);
      assert.match(r.json.error_description, /x-csrf-token/);
    }
  });

  it('no session and no token: 401; an unknown session cookie is no session', async () => {
    const r = await post({ cookie: 'ppx_session=nope', 'x-csrf-token': csrf });
    assert.equal(r.status, 401, r.text);
    assert.equal(r.json.error, 'invalid_token');
  });

  it('a bad bearer token never falls back to the session cookie', async () => {
    const r = await post(sessionHeaders({ authorization: 'Bearer not-a-token' }));
    assert.equal(r.status, 401, r.text);
  });

  it('after signing out, the session opens no run', async () => {
    const out = await fetch(`${p.url}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ppx_session=${session}` },
      body: new URLSearchParams({ csrf }),
    });
    assert.equal(out.status, 303);
    const r = await post(sessionHeaders());
    assert.equal(r.status, 401, r.text);
  });
});
