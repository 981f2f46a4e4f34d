import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import type { GrantRecord } from '../../../src/model/grant-record.ts';
import type { CrossDomainTransfer } from '../../../src/model/vocabulary.ts';
import { evaluateAccess, type Scope } from '../../../src/policy/scope.ts';
import {
  decideTransfer,
  mappingApplies,
  planTransfer,
  type ReviewFact,
} from '../../../src/policy/trait-mapping.ts';
import { isClaimVisible, reviewableCrossDomainClaims } from '../../../src/policy/visibility.ts';
import { assertOk, claim, grant, NOW } from '../../support/policy-fixtures.ts';

// The policy side of a cross-domain transfer (SPEC §13.2): which claims are reviewable, which
// mapped traits a read may include given the subject's reviews.

const CLAIMS: Claim[] = [
  claim({ claim_id: 'ppx:claim:core-novelty', value: 0.62 }),
  claim({ claim_id: 'ppx:claim:f-int', namespace: 'fragrance', key: 'intensity_preference', value: 0.45 }),
  claim({ claim_id: 'ppx:claim:f-fresh', namespace: 'fragrance', key: 'freshness_preference', value: 0.6 }),
  claim({ claim_id: 'ppx:claim:t-pace', namespace: 'travel', key: 'pace_preference', value: 0.4 }),
  claim({
    claim_id: 'ppx:claim:f-rejected',
    namespace: 'fragrance',
    key: 'projection_tolerance',
    value: 0.9,
    review: { review_status: 'rejected' },
  }),
];

function travelScope(cross: CrossDomainTransfer, overrides: Partial<GrantRecord> = {}): Scope {
  const g = grant({
    grantee_id: 'travel-demo',
    allowed_domains: ['travel'],
    allowed_namespaces: ['core', 'fragrance', 'travel'],
    cross_domain_transfer: cross,
    ...overrides,
  });
  return assertOk(evaluateAccess(g, { operation: 'read' }, NOW));
}

const review = (id: string, status: ReviewFact['status'], domains = ['fragrance'], target = 'travel') => ({
  review_id: id,
  source_domains: domains,
  target_domain: target,
  status,
});

describe('reviewable cross-domain claims', () => {
  it('are the in-scope cross-domain claims, and only under allow_with_review', () => {
    const ids = (cs: Claim[]) => cs.map((c) => c.claim_id);
    assert.deepEqual(ids(reviewableCrossDomainClaims(travelScope('allow_with_review'), CLAIMS)), [
      'ppx:claim:f-int',
      'ppx:claim:f-fresh',
    ]);
    for (const other of ['deny', 'allow_if_same_provider', 'allow'] as const) {
      assert.deepEqual(reviewableCrossDomainClaims(travelScope(other), CLAIMS), [], other);
    }
    const noFragrance = travelScope('allow_with_review', { allowed_namespaces: ['core', 'travel'] });
    assert.deepEqual(reviewableCrossDomainClaims(noFragrance, CLAIMS), []);
  });

  it('are never visible themselves under allow_with_review', () => {
    const scope = travelScope('allow_with_review');
    for (const c of CLAIMS.filter((c) => c.namespace === 'fragrance'))
      assert.equal(isClaimVisible(scope, c), false);
  });
});

describe('planTransfer', () => {
  it('maps the reviewable claims that have a mapping, by source domain', () => {
    const plan = planTransfer(travelScope('allow_with_review'), CLAIMS, NOW);
    assert.deepEqual(plan.domains, ['fragrance']);
    assert.equal(plan.target, 'travel');
    assert.deepEqual(
      plan.mapped.get('fragrance')?.map((c) => [c.key, c.value]),
      [['sensory_intensity_preference', 0.5]],
    );
  });

  it('is empty under the other policies, without core in scope, or when the target key is not granted', () => {
    for (const other of ['deny', 'allow_if_same_provider', 'allow'] as const) {
      assert.deepEqual(planTransfer(travelScope(other), CLAIMS, NOW).domains, [], other);
    }
    const noCore = travelScope('allow_with_review', { allowed_namespaces: ['fragrance', 'travel'] });
    assert.deepEqual(planTransfer(noCore, CLAIMS, NOW).domains, []);
    const keys = travelScope('allow_with_review', {
      allowed_claim_keys: ['fragrance.intensity_preference', 'novelty_tolerance'],
    });
    assert.deepEqual(planTransfer(keys, CLAIMS, NOW).domains, []);
    const withTarget = travelScope('allow_with_review', {
      allowed_claim_keys: ['fragrance.intensity_preference', 'sensory_intensity_preference'],
    });
    assert.deepEqual(planTransfer(withTarget, CLAIMS, NOW).domains, ['fragrance']);
  });

  it('takes its domains and keys from the scope, never from the claims', () => {
    const scope = travelScope('allow_with_review');
    const empty = planTransfer(scope, [], NOW);
    const full = planTransfer(scope, CLAIMS, NOW);
    assert.deepEqual(empty.domains, ['fragrance']);
    assert.deepEqual(empty.domains, full.domains);
    assert.deepEqual([...empty.keys], [...full.keys]);
    assert.deepEqual(empty.keys.get('fragrance'), [
      'novelty_tolerance',
      'sensory_intensity_preference',
      'social_energy_preference',
    ]);
    assert.deepEqual([...empty.mapped], []);
    assert.equal(decideTransfer(empty, []).uncovered.length, 1, 'an empty profile asks for the review too');
  });

  it('names every domain the request uses as the target', () => {
    const scope = travelScope('allow_with_review', { allowed_domains: ['travel', 'media'] });
    assert.equal(planTransfer(scope, CLAIMS, NOW).target, 'media,travel');
  });
});

describe('decideTransfer', () => {
  const plan = planTransfer(travelScope('allow_with_review'), CLAIMS, NOW);

  it('without a review: nothing included, the domain uncovered, no notice', () => {
    assert.deepEqual(decideTransfer(plan, []), { include: [], uncovered: ['fragrance'], notice: undefined });
  });

  it('pending and rejected include nothing; approved includes the mapped traits', () => {
    const pending = decideTransfer(plan, [review('r1', 'pending')]);
    assert.deepEqual(pending, { include: [], uncovered: [], notice: { review_id: 'r1', status: 'pending' } });
    const rejected = decideTransfer(plan, [review('r1', 'rejected')]);
    assert.deepEqual(rejected, {
      include: [],
      uncovered: [],
      notice: { review_id: 'r1', status: 'rejected' },
    });
    const approved = decideTransfer(plan, [review('r1', 'approved')]);
    assert.deepEqual(approved.include, plan.mapped.get('fragrance'));
    assert.deepEqual(approved.notice, { review_id: 'r1', status: 'approved' });
  });

  it('uses the latest review for the same target; another target does not count', () => {
    assert.equal(
      decideTransfer(plan, [review('r1', 'rejected'), review('r2', 'approved')]).include.length,
      1,
    );
    assert.equal(
      decideTransfer(plan, [review('r1', 'approved'), review('r2', 'rejected')]).include.length,
      0,
    );
    const elsewhere = decideTransfer(plan, [review('r1', 'approved', ['fragrance'], 'media')]);
    assert.deepEqual(elsewhere.uncovered, ['fragrance']);
    assert.deepEqual(elsewhere.include, []);
  });

  it('mapping applies only to an approved review', () => {
    assert.equal(mappingApplies('approved'), true);
    assert.equal(mappingApplies('pending'), false);
    assert.equal(mappingApplies('rejected'), false);
    assert.equal(mappingApplies(undefined), false);
  });
});
