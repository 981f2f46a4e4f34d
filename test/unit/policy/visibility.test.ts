import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import type { GrantRecord } from '../../../src/model/grant-record.ts';
import type { CrossDomainTransfer } from '../../../src/model/vocabulary.ts';
import { type AccessRequest, evaluateAccess, type Scope } from '../../../src/policy/scope.ts';
import { homeDomains, isClaimVisible, visibleClaims } from '../../../src/policy/visibility.ts';
import { assertOk, claim, grant, NOW } from '../../support/policy-fixtures.ts';

/** A scope over core+fragrance+travel, used in the fragrance domain only. */
function scopeFor(
  crossDomain: CrossDomainTransfer,
  overrides: Partial<GrantRecord> = {},
  request: Partial<AccessRequest> = {},
): Scope {
  const g = grant({
    allowed_namespaces: ['core', 'fragrance', 'travel'],
    cross_domain_transfer: crossDomain,
    ...overrides,
  });
  return assertOk(evaluateAccess(g, { operation: 'read', ...request }, NOW));
}

const travelStated = claim({
  claim_id: 'ppx:claim:travel-stated',
  namespace: 'travel',
  key: 'pace_preference',
  source: { kind: 'user_stated' },
});
const travelImported = claim({
  claim_id: 'ppx:claim:travel-imported',
  namespace: 'travel',
  key: 'pace_preference',
  source: { kind: 'imported', origin: 'ppx:provider:other' },
});
const fragranceImported = claim({
  claim_id: 'ppx:claim:frag-imported',
  namespace: 'fragrance',
  key: 'intensity_preference',
  source: { kind: 'imported' },
});
const coreAnywhere = claim({ claim_id: 'ppx:claim:core-any' });
const coreEmptyDomains = claim({ claim_id: 'ppx:claim:core-empty', applicability: { domains: [] } });
const coreTravelOnly = claim({ claim_id: 'ppx:claim:core-travel', applicability: { domains: ['travel'] } });
const coreTravelOnlyImported = claim({
  claim_id: 'ppx:claim:core-travel-imp',
  applicability: { domains: ['travel'] },
  source: { kind: 'imported' },
});
const coreBoth = claim({
  claim_id: 'ppx:claim:core-both',
  applicability: { domains: ['travel', 'fragrance'] },
});

const ALL = [
  travelStated,
  travelImported,
  fragranceImported,
  coreAnywhere,
  coreEmptyDomains,
  coreTravelOnly,
  coreTravelOnlyImported,
  coreBoth,
];

const ids = (claims: readonly Claim[]) => claims.map((c) => c.claim_id.slice('ppx:claim:'.length)).sort();

describe('isClaimVisible: cross_domain_transfer (use domain fragrance)', () => {
  const inDomain = ['core-any', 'core-both', 'core-empty', 'frag-imported'];

  it('deny: only claims whose home includes fragrance (or core with no domains)', () => {
    assert.deepEqual(ids(visibleClaims(scopeFor('deny'), ALL)), inDomain);
  });

  it('allow_with_review: same as deny without a recorded review', () => {
    assert.deepEqual(ids(visibleClaims(scopeFor('allow_with_review'), ALL)), inDomain);
  });

  it('allow_if_same_provider: cross-domain claims pass unless imported', () => {
    assert.deepEqual(
      ids(visibleClaims(scopeFor('allow_if_same_provider'), ALL)),
      [...inDomain, 'core-travel', 'travel-stated'].sort(),
    );
  });

  it('allow_if_same_provider: imported in-domain claims are not cross-domain and stay visible', () => {
    assert.equal(isClaimVisible(scopeFor('allow_if_same_provider'), fragranceImported), true);
  });

  it('allow: every cross-domain claim passes, imported too', () => {
    assert.deepEqual(ids(visibleClaims(scopeFor('allow'), ALL)), ids(ALL));
  });

  it('a requested domain narrows the use domains: fragrance claims become cross-domain in travel', () => {
    const scope = scopeFor('deny', { allowed_domains: ['fragrance', 'travel'] }, { domain: 'travel' });
    assert.deepEqual(ids(visibleClaims(scope, ALL)), [
      'core-any',
      'core-both',
      'core-empty',
      'core-travel',
      'core-travel-imp',
      'travel-imported',
      'travel-stated',
    ]);
  });

  it('a grant over two domains sees both domains without a requested domain', () => {
    const scope = scopeFor('deny', { allowed_domains: ['fragrance', 'travel'] });
    assert.deepEqual(ids(visibleClaims(scope, ALL)), ids(ALL));
  });
});

describe('homeDomains', () => {
  it('a domain namespace claim belongs to its namespace, ignoring applicability', () => {
    const c = claim({
      claim_id: 'ppx:claim:x',
      namespace: 'travel',
      key: 'pace_preference',
      applicability: { domains: ['fragrance'] },
    });
    assert.deepEqual(homeDomains(c), ['travel']);
    assert.equal(isClaimVisible(scopeFor('deny'), c), false);
  });

  it('a core claim belongs to its applicability domains, or anywhere', () => {
    assert.deepEqual(homeDomains(coreTravelOnly), ['travel']);
    assert.equal(homeDomains(coreAnywhere), 'any');
    assert.equal(homeDomains(coreEmptyDomains), 'any');
  });
});

describe('isClaimVisible: namespaces, keys, review', () => {
  it('a claim outside the scope namespaces is hidden even under allow', () => {
    const scope = scopeFor('allow', {}, { namespaces: ['core'] });
    assert.equal(isClaimVisible(scope, travelStated), false);
    assert.equal(isClaimVisible(scope, coreAnywhere), true);
  });

  it('a claim whose qualified key is outside the scope keys is hidden', () => {
    const scope = scopeFor('allow', { allowed_claim_keys: ['novelty_tolerance', 'travel.pace_preference'] });
    assert.equal(isClaimVisible(scope, coreAnywhere), true);
    assert.equal(isClaimVisible(scope, travelStated), true);
    assert.equal(isClaimVisible(scope, fragranceImported), false);
    const risk = claim({ claim_id: 'ppx:claim:risk', key: 'risk_tolerance' });
    assert.equal(isClaimVisible(scope, risk), false);
  });

  it('an unprefixed requested key never reaches a domain claim of that name', () => {
    const scope = scopeFor('allow', {}, { keys: ['family_preference'] });
    const domainClaim = claim({
      claim_id: 'ppx:claim:fam',
      namespace: 'fragrance',
      key: 'family_preference',
    });
    assert.equal(isClaimVisible(scope, domainClaim), false);
    const qualified = scopeFor('allow', {}, { keys: ['fragrance.family_preference'] });
    assert.equal(isClaimVisible(qualified, domainClaim), true);
  });

  it('a `core.`-prefixed grant key matches the unprefixed core claim', () => {
    const scope = scopeFor('deny', { allowed_claim_keys: ['core.novelty_tolerance'] });
    assert.equal(isClaimVisible(scope, coreAnywhere), true);
  });

  it('rejected claims are hidden under every cross_domain_transfer value', () => {
    const rejected = claim({ claim_id: 'ppx:claim:rej', review: { review_status: 'rejected' } });
    for (const x of ['deny', 'allow_with_review', 'allow_if_same_provider', 'allow'] as const) {
      assert.equal(isClaimVisible(scopeFor(x), rejected), false, x);
    }
  });

  it('claims under review are not hidden by their review status', () => {
    for (const status of ['unreviewed', 'pending_confirmation', 'confirmed'] as const) {
      const c = claim({ claim_id: `ppx:claim:${status}`, review: { review_status: status } });
      assert.equal(isClaimVisible(scopeFor('deny'), c), true, status);
    }
  });
});
