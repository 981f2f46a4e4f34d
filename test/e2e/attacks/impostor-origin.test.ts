import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientRecord } from '../../../src/model/client.ts';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { inTransaction } from '../../../src/operations/transaction.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { requestConsent } from '../../support/web-session.ts';
import { newSession } from './helpers.ts';

// An impostor app (issue 22 item 4): a client ID metadata document on a stranger's host, named
// exactly like the operator's app, must not read like it. Only the operator, or a document at an
// origin the operator registered (scheme, host and port all alike), vouches for a name; every app
// the operator did not register shows its host beside its name: in /app/apps.json (which names
// apps on every view of /app), on the consent page and on the sign-in page.

const REAL = 'Fragrance Demo App';

describe('an impostor app on a stranger’s host, or on another port or scheme of the real one', () => {
  let p: TestProvider;
  let cookie: string;
  before(async () => {
    p = await startTestProvider();
    cookie = `ppx_session=${(await newSession(p, DEMO_SUBJECT)).session}`;
    // The operator's app lives at https://real.example (its registered redirect's origin).
    const real = await registerClient(p.deps, {
      client_id: 'real-app',
      name: REAL,
      redirect_uris: ['https://real.example/cb'],
    });
    assert.ok(real.ok);
  });
  after(() => p.close());

  /** Stores a metadata document client as client-document.ts#recordOf leaves it. */
  async function documentClient(clientId: string, redirectUri: string): Promise<void> {
    const record: ClientRecord = {
      client_id: clientId,
      name: REAL,
      redirect_uris: [redirectUri],
      kind: 'public',
      created_at: new Date().toISOString(),
      source: 'metadata_document',
      metadata: { client_id: clientId, client_name: REAL, redirect_uris: [redirectUri] },
    };
    await inTransaction(p.deps, (tx) => tx.store.putClient(record));
  }

  async function appsJson(...ids: string[]) {
    const query = new URLSearchParams(ids.map((id): [string, string] => ['id', id]));
    const res = await fetch(`${p.url}/app/apps.json?${query}`, { headers: { cookie } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { apps: Record<string, unknown> }).apps;
  }

  it('a document on a stranger’s host is not vouched for, and carries its host', async () => {
    const id = 'https://stranger.example/client.json';
    await documentClient(id, 'https://stranger.example/cb');
    const apps = await appsJson(id, 'real-app');
    assert.deepEqual(apps[id], { name: REAL, host: 'stranger.example', vouched: false });
    assert.deepEqual(apps['real-app'], { name: REAL, vouched: true }, 'the operator’s app: its name alone');
  });

  it('the same host on another port, or over http, is another origin: not vouched', async () => {
    const port = 'https://real.example:8443/client.json';
    const http = 'http://real.example/client.json';
    await documentClient(port, 'https://real.example:8443/cb');
    await documentClient(http, 'http://real.example/cb');
    const apps = await appsJson(port, http);
    assert.deepEqual(apps[port], { name: REAL, host: 'real.example:8443', vouched: false });
    assert.deepEqual(apps[http], { name: REAL, host: 'real.example', vouched: false });
  });

  it('a document at the very origin the operator registered is vouched for, still with its host', async () => {
    const id = 'https://real.example/client.json';
    await documentClient(id, 'https://real.example/cb');
    assert.deepEqual((await appsJson(id))[id], { name: REAL, host: 'real.example', vouched: true });
  });

  it('the consent page and the sign-in page name the stranger’s document with its host, not verified', async () => {
    const id = 'https://stranger.example/client.json';
    const req = await requestConsent(p, { client_id: id, redirect_uri: 'https://stranger.example/cb' });
    const res = await fetch(`${p.url}/consent/${req.grant_request_id}`, { headers: { cookie } });
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<h1>An app that calls itself “Fragrance Demo App” at stranger\.example wants/);
    assert.doesNotMatch(html, /✓ verified/);
    assert.match(html, /Not verified: this app named itself\./);
    const signIn = await fetch(
      `${p.url}/signin?return_to=${encodeURIComponent(`/consent/${req.grant_request_id}`)}`,
    );
    assert.match(
      await signIn.text(),
      /An app that calls itself “Fragrance Demo App” at stranger\.example is asking/,
    );
  });
});
