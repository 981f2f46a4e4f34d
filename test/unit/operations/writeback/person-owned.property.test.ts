import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { proposalProblems } from '../../../../src/operations/writeback/validate.ts';
import { grantScope } from '../../../../src/policy/scope.ts';
import { granteeClaim } from '../../../../src/policy/writeback.ts';
import { grant } from '../../../support/policy-fixtures.ts';

// Issue 22 item 2, as a property: whatever claim a grantee proposes, with any mix of the
// person-owned fields (review.user_visible, review.user_editable, lifecycle.last_confirmed_at,
// provenance user_stated), either it is refused, or what the provider keeps sets none of them,
// and a claim that said "the person said this" is flagged so the operation queues it for the
// person under every policy (propose.ts#plan; the e2e test test/e2e/http/writeback/person-owned.test.ts).

const KINDS = ['user_stated', 'observed', 'imported', 'inferred', 'derived_aggregate'] as const;
const POLICIES = ['allow', 'auto_for_low_risk', 'review_required'] as const;
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const granteeClaimArb = fc.record(
  {
    type: fc.constant('preference'),
    namespace: fc.constantFrom('core', 'fragrance'),
    key: fc.constant('x'),
    value: fc.double({ min: 0, max: 1, noNaN: true }),
    confidence: fc.double({ min: 0, max: 1, noNaN: true }),
    source: fc.record(
      { kind: fc.constantFrom(...KINDS), origin: maybe(fc.constantFrom('chat', 'quiz', 'web_app')) },
      { requiredKeys: ['kind'] },
    ),
    lifecycle: maybe(
      fc.record(
        {
          last_confirmed_at: fc.constantFrom('2026-12-04T10:00:00.000Z', '2020-01-01T00:00:00Z'),
          decay_policy: fc.constantFrom('linear', 'none'),
        },
        { requiredKeys: [] },
      ),
    ),
    review: maybe(
      fc.record(
        {
          user_visible: fc.boolean(),
          user_editable: fc.boolean(),
          review_status: fc.constantFrom('confirmed', 'unreviewed'),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: ['type', 'namespace', 'key', 'value', 'confidence', 'source'] },
);

describe('person-owned fields, for random grantee claims', () => {
  it('a grantee write never ends with a person-owned field set by the grantee', () => {
    fc.assert(
      fc.property(granteeClaimArb, fc.constantFrom(...POLICIES), (raw, policy) => {
        const key = raw.namespace === 'core' ? 'novelty_tolerance' : 'freshness_preference';
        const input = JSON.parse(JSON.stringify({ ...raw, key }));
        const scope = grantScope(grant({ allowed_operations: ['propose_update'], writeback_policy: policy }));
        const { claims, problems } = proposalProblems([input], scope);
        const hides = raw.review?.user_visible === false || raw.review?.user_editable === false;
        if (hides) {
          assert.ok(problems.some((p) => p.code === 'invalid_request'));
          return;
        }
        assert.deepEqual(problems, []);
        const { claim, claimedStated } = granteeClaim(
          { ...(claims[0] as (typeof claims)[0]), claim_id: 'ppx:claim:new' },
          'fragrance-demo',
        );
        assert.equal(claim.review?.user_visible, undefined);
        assert.equal(claim.review?.user_editable, undefined);
        assert.equal(claim.lifecycle?.last_confirmed_at, undefined);
        assert.notEqual(claim.source.kind, 'user_stated');
        assert.equal(claimedStated, raw.source.kind === 'user_stated');
        if (claimedStated) assert.equal(claim.source.origin, 'fragrance-demo');
      }),
      { seed: 0x22_0002, numRuns: 500 },
    );
  });
});
