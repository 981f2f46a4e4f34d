import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { officialErrors, SKIP_NO_SHARED } from '../../support/official-schemas.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

describe('smoke', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('serves an effective profile that validates', { skip: SKIP_NO_SHARED }, async () => {
    const { token } = await p.grant();
    const r = await api(p.url, '/v1/profile/effective', {
      token,
      body: { context: { climate: 'hot_humid' } },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(officialErrors('effective-profile', r.json), []);
    assert.ok(r.json.applied_modifiers.includes('ppx:modifier:demo-climate-hot-humid'));
  });
});
