import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContextModifier } from '../../../src/model/context-modifier.ts';
import { deletionReaches } from '../../../src/policy/deletion-reach.ts';
import { reachOf } from '../../../src/policy/scope.ts';
import { claim, grant } from '../../support/policy-fixtures.ts';

// Issue 22 item 1: which grants could have seen what a deletion removes (their stored answers go),
// and which could not (theirs stay, so the deletion is invisible to them).

const NONE = new Set<string>();
const travel = claim({ claim_id: 'ppx:claim:t', namespace: 'travel', key: 'pace_preference' });
const frag = claim({ claim_id: 'ppx:claim:f', namespace: 'fragrance', key: 'intensity_preference' });
const coreTravelOnly = claim({
  claim_id: 'ppx:claim:c',
  key: 'risk_tolerance',
  applicability: { domains: ['travel'] },
});
const modifier = (targets: string[], namespace = 'core'): ContextModifier => ({
  modifier_id: 'ppx:modifier:m',
  namespace,
  key: 'occasion_office',
  effect_type: 'weight_adjustment',
  targets,
  condition: { occasion: 'office' },
  effect: { decrease: targets.map((t) => t.split('.').pop() ?? t) },
  confidence: 0.7,
  source: { kind: 'inferred' },
});
const only = (claims = [frag], modifiers: ContextModifier[] = [], before = [frag, travel]) => ({
  claims,
  modifiers,
  before,
});

describe('deletionReaches', () => {
  const fragranceGrant = reachOf(grant());

  it('a claim the grant could read reaches it; one of another area does not', () => {
    assert.equal(deletionReaches(fragranceGrant, only([frag]), NONE), true);
    assert.equal(deletionReaches(fragranceGrant, only([travel]), NONE), false);
  });

  it('a grant limited to some keys is reached by those keys only', () => {
    const keyed = reachOf(grant({ allowed_claim_keys: ['fragrance.freshness_preference'] }));
    assert.equal(deletionReaches(keyed, only([frag]), NONE), false);
  });

  it('a core claim of another domain reaches a deny grant not at all, an allow grant fully', () => {
    assert.equal(deletionReaches(fragranceGrant, only([coreTravelOnly]), NONE), false);
    const allow = reachOf(grant({ cross_domain_transfer: 'allow' }));
    assert.equal(deletionReaches(allow, only([coreTravelOnly]), NONE), true);
  });

  it('under allow_with_review, a cross-domain claim reaches the grant once the person approved its domain', () => {
    const review = reachOf(
      grant({
        cross_domain_transfer: 'allow_with_review',
        allowed_namespaces: ['core', 'fragrance', 'travel'],
      }),
    );
    assert.equal(deletionReaches(review, only([travel]), NONE), false);
    assert.equal(deletionReaches(review, only([travel]), new Set(['travel'])), true);
  });

  it('a modifier reaches the grant when it changes a claim the grant could read', () => {
    assert.equal(
      deletionReaches(fragranceGrant, only([], [modifier(['fragrance.intensity_preference'])]), NONE),
      true,
    );
    assert.equal(
      deletionReaches(fragranceGrant, only([], [modifier(['travel.pace_preference'])]), NONE),
      false,
    );
    // The key is in the grant, but the profile held no claim of it for the modifier to change.
    assert.equal(
      deletionReaches(fragranceGrant, only([], [modifier(['fragrance.freshness_preference'])]), NONE),
      false,
    );
  });
});
