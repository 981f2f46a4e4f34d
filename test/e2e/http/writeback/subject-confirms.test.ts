import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { auditActions, propose, proposed, storedClaims } from '../../../support/writeback.ts';

// Issue 22 item 7: the person writing the value a claim already has confirms it. Where the value
// came from changes only when they set a different value.

describe('the subject’s write of the same value', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const risk = async () => (await storedClaims(p)).find((c) => c.claim_id === 'ppx:claim:demo-core-risk');

  it('is a confirmation: provenance and confidence unchanged, last_confirmed_at set, history says confirmed', async () => {
    const before_ = await risk();
    assert.equal(before_?.source.kind, 'imported');
    assert.equal(before_?.lifecycle?.last_confirmed_at, undefined);
    // The claim as read, written back as said by the person: nothing they set differs.
    const { claim_id: _id, ...asRead } = before_ as NonNullable<typeof before_>;
    const r = await propose(p, p.subjectToken, [
      { ...asRead, confidence: 1, source: { kind: 'user_stated', origin: 'web_app' } },
    ]);
    assert.equal(r.status, 200, r.text);
    const after_ = await risk();
    assert.deepEqual(after_?.source, before_?.source);
    assert.equal(after_?.confidence, 0.6);
    assert.equal(after_?.value, 0.35);
    assert.equal(after_?.review?.review_status, 'confirmed');
    assert.ok(after_?.lifecycle?.last_confirmed_at);
    const history = await api(p.url, '/v1/profile/history?claim_id=ppx:claim:demo-core-risk', {
      token: p.subjectToken,
    });
    assert.equal(history.json.entries.at(-1).change, 'confirmed');
    assert.ok(
      (await auditActions(p, 'claim_confirmed')).some((e) => e.claim_keys.includes('risk_tolerance')),
    );
  });

  it('a different value is the person’s own: said by them', async () => {
    const r = await propose(p, p.subjectToken, [
      proposed('core', 'risk_tolerance', 0.4, {
        value_type: 'float',
        units: 'normalized_0_1',
        confidence: 1,
        source: { kind: 'user_stated', origin: 'web_app' },
      }),
    ]);
    assert.equal(r.status, 200, r.text);
    const after_ = await risk();
    assert.equal(after_?.value, 0.4);
    assert.equal(after_?.source.kind, 'user_stated');
  });
});
