import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { auditActions, propose, proposed, WRITE_GRANT } from '../../../support/writeback.ts';

// GET/POST /v1/profile/sensitive-keys (docs/writeback.md): the subject marks keys sensitive, and
// under auto_for_low_risk a proposal on such a key waits for review instead of being applied.

const PATH = '/v1/profile/sensitive-keys';

describe('sensitive keys', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const set = (body: unknown, token = p.subjectToken) => api(p.url, PATH, { token, body });
  const get = (token = p.subjectToken) => api(p.url, PATH, { token });

  it('starts empty; a set is normalized, deduplicated, sorted, read back and audited', async () => {
    assert.deepEqual((await get()).json, { sensitive_keys: [] });
    const r = await set({
      sensitive_keys: ['fragrance.projection_tolerance', 'core.novelty_tolerance', 'novelty_tolerance'],
    });
    assert.equal(r.status, 200, r.text);
    const expected = ['fragrance.projection_tolerance', 'novelty_tolerance'];
    assert.deepEqual(r.json, { sensitive_keys: expected });
    assert.deepEqual((await get()).json, { sensitive_keys: expected });
    const audited = await auditActions(p, 'sensitive_keys_changed');
    assert.deepEqual(audited.at(-1)?.claim_keys, expected);
  });

  it('a proposal on a sensitive key waits for review under auto_for_low_risk; the same proposal applies once unmarked', async () => {
    const { token } = await p.grant({ ...WRITE_GRANT, writeback_policy: 'auto_for_low_risk' });
    const lowRisk = () =>
      propose(p, token, [
        proposed('fragrance', 'projection_tolerance', 0.35, {
          source: { kind: 'observed' },
          confidence: 0.5,
        }),
      ]);
    assert.equal((await set({ sensitive_keys: ['fragrance.projection_tolerance'] })).status, 200);
    const held = await lowRisk();
    assert.equal(held.status, 202, held.text);
    assert.equal(held.json.proposals[0].status, 'pending');
    assert.equal((await set({ sensitive_keys: [] })).status, 200);
    const applied = await lowRisk();
    assert.equal(applied.json.proposals[0].status, 'applied', applied.text);
  });

  it('a grant token can neither read nor set them (403 access_denied)', async () => {
    const { token } = await p.grant();
    assertError(await get(token), 403, 'access_denied');
    assertError(await set({ sensitive_keys: [] }, token), 403, 'access_denied');
    assert.equal((await get()).status, 200);
  });

  for (const [name, body] of [
    ['an unknown key', { sensitive_keys: ['fragrance.no_such_key'] }],
    ['an unsupported namespace', { sensitive_keys: ['cooking.spice'] }],
    ['not a list', { sensitive_keys: 'novelty_tolerance' }],
    ['an extra member', { sensitive_keys: [], other: 1 }],
    ['a non-string key', { sensitive_keys: [1] }],
  ] as const) {
    it(`${name} is 400 and changes nothing`, async () => {
      assert.equal((await set({ sensitive_keys: ['novelty_tolerance'] })).status, 200);
      const r = await set(body);
      assert.equal(r.status, 400, r.text);
      assert.deepEqual((await get()).json, { sensitive_keys: ['novelty_tolerance'] });
    });
  }

  it('deleting the profile deletes them', async () => {
    assert.equal((await set({ sensitive_keys: ['novelty_tolerance'] })).status, 200);
    const profile = await p.deps.store.getProfileBySubject(p.subjectId);
    assert.ok(profile);
    const deleted = await api(p.url, '/v1/profile', { method: 'DELETE', token: p.subjectToken });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(await p.deps.store.getSetting(`sensitive_keys:${profile.profile_id}`), undefined);
    assertError(await get(), 404, 'not_found');
  });
});
