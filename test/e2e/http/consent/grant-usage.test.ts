import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueSubjectToken } from '../../../../src/operations/tokens/issue-tokens.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// When each app last used its access (list_grant_usage, GET /v1/consent/grants/usage): what the
// person's access cards say as "last used". A refused call is not a use; only the person asks;
// another person sees none of it.

describe('when apps last used their access', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const usage = async (token: string) => api(p.url, '/v1/consent/grants/usage', { token });

  it('is null until the app reads, then the time of its newest allowed call', async () => {
    const { grant, token } = await p.grant({ allowed_operations: ['read'] });
    const before = await usage(p.subjectToken);
    assert.equal(before.status, 200, before.text);
    const mine = (r: typeof before) =>
      r.json.usage.find((u: { grant_id: string }) => u.grant_id === grant.grant_id);
    assert.deepEqual(mine(before), { grant_id: grant.grant_id, last_used_at: null });

    // A call the grant does not allow is refused: not a use.
    const refused = await api(p.url, '/v1/export', { token, body: {} });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(mine(await usage(p.subjectToken)).last_used_at, null);

    const read = await api(p.url, '/v1/profile/effective', { token, body: {} });
    assert.equal(read.status, 200, read.text);
    const after = mine(await usage(p.subjectToken));
    assert.ok(
      typeof after.last_used_at === 'string' && Date.parse(after.last_used_at) > 0,
      JSON.stringify(after),
    );
  });

  it('a grant token is refused, and another person sees none of these grants', async () => {
    const { token } = await p.grant({});
    const asApp = await usage(token);
    assert.equal(asApp.status, 403, asApp.text);
    assert.equal(asApp.json.error, 'access_denied');
    const other = (await issueSubjectToken(p.deps, 'did:example:someone-else')).access_token;
    const theirs = await usage(other);
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(theirs.json.usage, []);
  });
});
