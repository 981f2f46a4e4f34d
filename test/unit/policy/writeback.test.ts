import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import { decideWriteback, HIGH_CONFIDENCE, riskOf } from '../../../src/policy/writeback.ts';

function claim(
  kind: Claim['source']['kind'],
  confidence: number,
  key = 'novelty_tolerance',
  namespace = 'core',
): Claim {
  return {
    claim_id: 'ppx:claim:p1',
    type: 'preference',
    namespace,
    key,
    value: 0.5,
    confidence,
    source: { kind },
  };
}

describe('writeback policy (SPEC §6.6)', () => {
  it('forbidden refuses every proposal', () => {
    for (const kind of ['user_stated', 'observed', 'inferred'] as const) {
      assert.deepEqual(decideWriteback('forbidden', claim(kind, 0.1)), { kind: 'refuse' });
    }
  });

  it('review_required queues every proposal, even a low-risk one', () => {
    assert.equal(decideWriteback('review_required', claim('observed', 0.2)).kind, 'queue');
  });

  it('allow applies, but never over a user_stated claim', () => {
    assert.deepEqual(decideWriteback('allow', claim('inferred', 0.99)), { kind: 'apply' });
    const decision = decideWriteback('allow', claim('observed', 0.5), {
      existing: claim('user_stated', 0.9),
    });
    assert.equal(decision.kind, 'queue');
  });

  it('auto_for_low_risk applies low-risk proposals', () => {
    assert.deepEqual(decideWriteback('auto_for_low_risk', claim('observed', 0.95)), { kind: 'apply' });
    assert.deepEqual(decideWriteback('auto_for_low_risk', claim('inferred', HIGH_CONFIDENCE - 0.01)), {
      kind: 'apply',
    });
  });

  it('auto_for_low_risk queues high-confidence inferences, sensitive keys and stated claims', () => {
    assert.equal(decideWriteback('auto_for_low_risk', claim('inferred', HIGH_CONFIDENCE)).kind, 'queue');
    assert.equal(decideWriteback('auto_for_low_risk', claim('derived_aggregate', 0.9)).kind, 'queue');
    const sensitive = { sensitiveKeys: new Set(['fragrance.note_aversions']) };
    assert.equal(
      decideWriteback('auto_for_low_risk', claim('observed', 0.3, 'note_aversions', 'fragrance'), sensitive)
        .kind,
      'queue',
    );
    assert.equal(
      decideWriteback('auto_for_low_risk', claim('observed', 0.3), { existing: claim('user_stated', 0.5) })
        .kind,
      'queue',
    );
  });

  it('riskOf explains why a proposal is not low risk', () => {
    assert.equal(riskOf(claim('observed', 0.9)), undefined);
    assert.match(riskOf(claim('inferred', 0.8)) ?? '', /inferred claim with confidence 0.8/);
  });
});
