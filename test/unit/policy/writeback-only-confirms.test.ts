import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import { onlyConfirms } from '../../../src/policy/writeback.ts';

// Issue 22 item 7: which of the subject's writes only confirm what is stored.

const STORED: Claim = {
  claim_id: 'ppx:claim:risk',
  type: 'preference',
  namespace: 'core',
  key: 'risk_tolerance',
  value: 0.35,
  value_type: 'float',
  units: 'normalized_0_1',
  confidence: 0.6,
  source: { kind: 'imported', origin: 'ppx:provider:previous-app' },
  review: { review_status: 'unreviewed' },
};
const { claim_id: _id, ...SAME } = STORED;

describe('onlyConfirms', () => {
  it('the same value with other provenance, confidence or review only confirms', () => {
    assert.ok(
      onlyConfirms(STORED, {
        ...SAME,
        confidence: 1,
        source: { kind: 'user_stated', origin: 'web_app' },
        review: { review_status: 'confirmed' },
        lifecycle: { last_confirmed_at: '2026-01-01T00:00:00Z' },
      }),
    );
    const map = { ...STORED, value: { a: 0.1, b: 0.2 }, value_type: 'map<string,float>' as const };
    assert.ok(onlyConfirms(map, { ...map, value: { b: 0.2, a: 0.1 } }), 'map order does not matter');
  });

  it('another value, unit, type, polarity, stability, domain or explanation is a change', () => {
    assert.ok(!onlyConfirms(STORED, { ...SAME, stability: 'high' }));
    assert.ok(!onlyConfirms(STORED, { ...SAME, applicability: { domains: ['travel'] } }));
    assert.ok(!onlyConfirms(STORED, { ...SAME, explanation: { summary: 'mine' } }));
    assert.ok(!onlyConfirms(STORED, { ...SAME, value: 0.36 }));
    assert.ok(!onlyConfirms(STORED, { ...SAME, units: undefined }));
    assert.ok(!onlyConfirms(STORED, { ...SAME, type: 'aversion' }));
    assert.ok(!onlyConfirms(STORED, { ...SAME, polarity: 'negative' }));
  });
});
