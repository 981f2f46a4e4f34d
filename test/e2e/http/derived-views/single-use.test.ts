import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../../../src/model/ids.ts';
import { issueFamily } from '../../../../src/operations/consent/tokens.ts';
import { issueGrantToken } from '../../../../src/operations/tokens/issue-tokens.ts';
import { assertView } from '../../../support/derived-views.ts';
import { assertError } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// One-time grants for matching (SPEC §13.3): the grant ends with the session its first token
// opens (WIRE-NOTES §4), the views it yields never outlive it, and it never exports.

describe('single-use matching grant', () => {
  let p: TestProvider;
  let offset = 0;
  before(async () => {
    p = await startTestProvider({ clock: () => new Date(Date.now() + offset) });
  });
  after(() => p.close());

  it('works until its token expires, then 401; views end with it; export is 403 throughout', async () => {
    const { grant } = await p.grant({
      purposes: ['matching'],
      allowed_namespaces: ['core'],
      access_mode: 'single_use',
    });
    const issued = await issueFamily(p.deps, [grant], 'fragrance-demo');
    assert.equal(issued.refresh_token, undefined, 'a one-time grant gets no refresh token');
    const ends = (await p.deps.store.getGrant(grant.grant_id))?.expires_at;
    assert.ok(ends !== undefined);
    const token = issued.access_token;

    const body = { target: { budget_sensitivity: 0.5 } };
    const r = await api(p.url, '/v1/derived-views/match', { token, body });
    assertView(r, 'match');
    assert.ok(Date.parse(r.json.expires_at) <= Date.parse(ends), 'a view outlives its one-time grant');
    assertError(await api(p.url, '/v1/export', { token, body: {} }), 403, 'insufficient_scope');

    offset = Date.parse(ends) - Date.now() - 5_000;
    assertView(await api(p.url, '/v1/derived-views/match', { token, body }), 'match');
    offset = Date.parse(ends) - Date.now() + 1_000;
    const late = await api(p.url, '/v1/derived-views/match', { token, body });
    assert.equal(late.status, 401, late.text);
    offset = 0;
  });

  it('a one-time grant that lists export (stored before the rule) still cannot export', async () => {
    const { grant } = await p.grant({ allowed_operations: ['read', 'export'] });
    const once = { ...grant, grant_id: newId('grant'), access_mode: 'single_use' as const };
    await p.store.insertGrant(once);
    const { access_token } = await issueGrantToken(p.deps, once);
    const r = await api(p.url, '/v1/export', { token: access_token, body: {} });
    assertError(r, 403, 'insufficient_scope');
    assert.match(r.json.error_description, /single_use.*SPEC §13\.3/);
    // The same grant, continuous, exports.
    const { access_token: cont } = await issueGrantToken(p.deps, grant);
    assert.equal((await api(p.url, '/v1/export', { token: cont, body: {} })).status, 200);
  });
});
