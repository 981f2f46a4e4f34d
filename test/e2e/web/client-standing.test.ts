import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientRecord } from '../../../src/model/client.ts';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { inTransaction } from '../../../src/operations/transaction.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { requestConsent, signedInForms, signInOverHttp } from '../../support/web-session.ts';

// What the consent page says about who vouches for an app (model/client.ts#clientStanding): only
// operator-registered apps and metadata documents served over https from the redirect's own host
// are "verified"; an app that registered itself is said to have done so, in plain words.

const USER = { username: 'standing-user', password: 'standing-password-1' };
const VERIFIED = /✓ verified/;
const SELF = /Not verified: this app registered itself\./;

describe('consent page: who vouches for the app', () => {
  let p: TestProvider;
  let session: string;
  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    ({ session } = await signInOverHttp(p.url, USER.username, USER.password));
  });
  after(() => p.close());

  const { get } = signedInForms(
    () => p,
    () => session,
  );

  /** The consent page for a consent-v2 request by `clientId` to `redirectUri`, as HTML. */
  async function pageFor(clientId: string, redirectUri: string): Promise<string> {
    const req = await requestConsent(p, { client_id: clientId, redirect_uri: redirectUri });
    const res = await get(`/consent/${req.grant_request_id}`);
    assert.equal(res.status, 200);
    return res.text();
  }

  /** A stored client as a metadata document fetch leaves it (client-document.ts#recordOf). */
  async function documentClient(clientId: string, redirectUri: string): Promise<void> {
    const record: ClientRecord = {
      client_id: clientId,
      name: 'Document App',
      redirect_uris: [redirectUri],
      kind: 'public',
      created_at: new Date().toISOString(),
      source: 'metadata_document',
      metadata: { client_id: clientId, redirect_uris: [redirectUri] },
    };
    await inTransaction(p.deps, (tx) => tx.store.putClient(record));
  }

  it('an operator-registered app is verified', async () => {
    const r = await registerClient(p.deps, {
      client_id: 'operator-app',
      name: 'Operator App',
      redirect_uris: ['https://operator.example/cb'],
    });
    assert.ok(r.ok);
    assert.equal(r.value.source, 'operator', 'the record says who registered it');
    const page = await pageFor('operator-app', 'https://operator.example/cb');
    assert.match(page, VERIFIED);
    assert.doesNotMatch(page, SELF);
  });

  it('an operator record written before the field existed (no source) is still verified', async () => {
    const old: ClientRecord = {
      client_id: 'old-operator-app',
      name: 'Old Operator App',
      redirect_uris: ['https://old.example/cb'],
      kind: 'public',
      created_at: new Date().toISOString(),
    };
    await inTransaction(p.deps, (tx) => tx.store.putClient(old));
    assert.match(await pageFor('old-operator-app', 'https://old.example/cb'), VERIFIED);
  });

  it('an app that registered itself (RFC 7591) is not verified, and the page says why', async () => {
    const reg = await api(p.url, '/oauth/register', {
      body: {
        client_name: 'Totally Official Bank',
        redirect_uris: ['https://official.example/cb'],
        token_endpoint_auth_method: 'none',
      },
    });
    assert.equal(reg.status, 201, reg.text);
    const page = await pageFor(reg.json.client_id, 'https://official.example/cb');
    assert.doesNotMatch(page, VERIFIED);
    assert.doesNotMatch(page, /class="verified"/);
    assert.match(page, SELF);
    assert.match(page, /Anyone can register an app under any name/);
  });

  it('a metadata document served over https from the redirect origin speaks for the address, not the name', async () => {
    await documentClient('https://docs.example/client.json', 'https://docs.example/cb');
    const page = await pageFor('https://docs.example/client.json', 'https://docs.example/cb');
    // Anyone can serve a document naming itself after a known app from their own site (issue 22
    // item 4): the name is its own claim, shown with its host.
    assert.doesNotMatch(page, VERIFIED);
    assert.match(page, /Not verified: this app named itself\./);
    assert.match(page, /describes itself on docs\.example, the site you will be sent back to/);
    assert.match(page, /<h1>An app that calls itself “Document App” at docs\.example wants/);
  });

  it('a metadata document at an origin the operator registered is verified, named with its host', async () => {
    // operator-app (the first test) registered https://operator.example/cb.
    await documentClient('https://operator.example/client.json', 'https://operator.example/cb');
    const page = await pageFor('https://operator.example/client.json', 'https://operator.example/cb');
    assert.match(page, VERIFIED);
    assert.match(page, /<h1>Document App at operator\.example wants/);
  });

  it('a metadata document on the redirect’s host but another port or scheme is not its own site', async () => {
    await documentClient('https://ports.example:8443/client.json', 'https://ports.example/cb');
    const port = await pageFor('https://ports.example:8443/client.json', 'https://ports.example/cb');
    assert.doesNotMatch(port, VERIFIED);
    assert.match(port, SELF);
    await documentClient('https://scheme.example/client.json', 'http://scheme.example/cb');
    const scheme = await pageFor('https://scheme.example/client.json', 'http://scheme.example/cb');
    assert.doesNotMatch(scheme, VERIFIED);
    assert.match(scheme, SELF);
  });

  it('a metadata document from another host than the redirect is not verified', async () => {
    await documentClient('https://elsewhere.example/client.json', 'https://target.example/cb');
    const page = await pageFor('https://elsewhere.example/client.json', 'https://target.example/cb');
    assert.doesNotMatch(page, VERIFIED);
    assert.match(page, SELF);
  });

  it('a metadata document served over plain http (development flag) is not verified', async () => {
    await documentClient('http://dev.example/client.json', 'http://dev.example/cb');
    const page = await pageFor('http://dev.example/client.json', 'http://dev.example/cb');
    assert.doesNotMatch(page, VERIFIED);
    assert.match(page, SELF);
  });
});
