import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubject } from '../../../src/operations/accounts.ts';
import { DEMO_SUBJECT } from '../../../src/operations/demo-profile.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { requestConsent, signedInForms, signInOverHttp } from './helpers.ts';

// The consent pages' words, over plain HTTP: what a person reads, not what the specification
// says. The layout at phone width is checked in Chromium (consent-browser.test.ts).

const USER = { username: 'words-user', password: 'words-password-1' };
const OTHER = { username: 'words-other', password: 'words-password-2' };

describe('consent pages in plain words', () => {
  let p: TestProvider;
  let session: string;
  let otherSubject: string;
  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    const other = await createSubject(p.deps, OTHER);
    assert.ok(other.ok);
    otherSubject = other.value.subject_id;
    ({ session } = await signInOverHttp(p.url, USER.username, USER.password));
  });
  after(() => p.close());

  const { get } = signedInForms(
    () => p,
    () => session,
  );

  it('a request that does not exist and another account’s request read the same', async () => {
    const theirs = await requestConsent(p, { subject_id: otherSubject });
    const missing = await get('/consent/gr_doesnotexist0000000000');
    const foreign = await get(`/consent/${theirs.grant_request_id}`);
    assert.equal(missing.status, 404);
    assert.equal(foreign.status, 404);
    const [a, b] = [await missing.text(), await foreign.text()];
    assert.match(a, /This request does not exist or has expired/);
    assert.doesNotMatch(a, /for another account</);
    assert.equal(a, b, 'byte for byte the same page: nothing tells that the id is in use');
  });
});
