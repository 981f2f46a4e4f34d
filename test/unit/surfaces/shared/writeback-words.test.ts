import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../../src/model/claim.ts';
import { WritebackPolicy } from '../../../../src/model/vocabulary.ts';
import { QUEUE_REASONS } from '../../../../src/model/writeback-rules.ts';
import { decideWriteback } from '../../../../src/policy/writeback.ts';
import { grantCard } from '../../../../src/surfaces/shared/a2ui/index.ts';
import {
  queuedBecauseWords,
  WRITEBACK_WORDS,
  writePowerWords,
} from '../../../../src/surfaces/shared/writeback-words.ts';

// writePowerWords says what decideWriteback does (issue 22 item 3): for every policy, the words
// promise "without asking you" exactly when a low-risk change applies, and say what the person
// stated always waits exactly when it does. queuedBecauseWords has words for every reason the
// policy gives (item 15), said as the person's own rule.

const claim = (kind: Claim['source']['kind'], confidence = 0.5): Claim => ({
  claim_id: 'ppx:claim:x',
  type: 'preference',
  namespace: 'fragrance',
  key: 'freshness_preference',
  value: 0.5,
  confidence,
  source: { kind, origin: 'test' },
});

describe('writePowerWords follows the write-back rules', () => {
  for (const policy of WritebackPolicy.options) {
    it(`"${policy}": the words match what decideWriteback does`, () => {
      const words = writePowerWords(policy);
      const lowRisk = decideWriteback(policy, claim('observed'));
      const overStated = decideWriteback(policy, claim('observed'), { existing: claim('user_stated') });
      const guess = decideWriteback(policy, claim('inferred', 0.9));
      assert.equal(lowRisk.kind === 'refuse', /cannot change your profile/.test(words), words);
      assert.equal(lowRisk.kind === 'apply', /without asking you/.test(words), words);
      assert.equal(guess.kind === 'apply', !/confident guesses|nothing changes|cannot/.test(words), words);
      if (lowRisk.kind !== 'refuse') assert.equal(overStated.kind, 'queue');
      assert.equal(WRITEBACK_WORDS[policy], words);
    });
  }

  it('without propose_update nothing can change; with confirm_update the app can accept its own', () => {
    assert.equal(writePowerWords('allow', ['read']), 'It cannot change your profile.');
    assert.match(writePowerWords('review_required', ['propose_update', 'confirm_update']), /without asking/);
    assert.match(writePowerWords('forbidden', ['propose_update', 'confirm_update']), /cannot change/);
  });

  it('every grant card says it, from the grant', () => {
    for (const policy of WritebackPolicy.options) {
      const card = grantCard(
        {
          grant: {
            grant_id: 'ppx:grant:x',
            subject_id: 's',
            grantee_id: 'fragrance-demo',
            status: 'active',
            granted_at: '2026-12-01T00:00:00Z',
            purposes: ['recommendation'],
            allowed_domains: ['fragrance'],
            allowed_namespaces: ['fragrance'],
            allowed_operations: ['read', 'propose_update'],
            cross_domain_transfer: 'deny',
            writeback_policy: policy,
          },
        },
        new Date('2026-12-05T00:00:00Z'),
      );
      assert.ok(JSON.stringify(card.components).includes(writePowerWords(policy)), policy);
    }
  });
});

describe('queuedBecauseWords: the provider’s reasons as the person’s rules', () => {
  it('has words for every reason the policy gives, none of them spec words', () => {
    const reasons = [
      ...Object.values(QUEUE_REASONS),
      (decideWriteback('auto_for_low_risk', claim('inferred', 0.9)) as { reason: string }).reason,
      (decideWriteback('auto_for_low_risk', claim('derived_aggregate', 0.8)) as { reason: string }).reason,
    ];
    for (const reason of reasons) {
      const words = queuedBecauseWords(reason);
      assert.ok(words, `words for “${reason}”`);
      assert.doesNotMatch(words, /subject|grant|claim|inferred|derived_aggregate/, words);
    }
    assert.equal(
      queuedBecauseWords(QUEUE_REASONS.reviewEverything),
      'You asked to review every change from this app.',
    );
    assert.equal(queuedBecauseWords('something an app wrote'), undefined, 'nothing else is repeated');
  });
});
