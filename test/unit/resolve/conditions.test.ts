import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTEXT_DIMENSIONS } from '../../../src/model/vocabulary.ts';
import { conditionMatches } from '../../../src/resolve/modifiers.ts';

describe('conditionMatches (SPEC §5.3 condition)', () => {
  for (const dimension of CONTEXT_DIMENSIONS) {
    it(`matches on core dimension ${dimension}`, () => {
      assert.equal(conditionMatches({ [dimension]: 'v1' }, { [dimension]: 'v1' }), true);
      assert.equal(conditionMatches({ [dimension]: 'v1' }, { [dimension]: 'v2' }), false);
      assert.equal(conditionMatches({ [dimension]: ['v0', 'v1'] }, { [dimension]: 'v1' }), true);
      assert.equal(conditionMatches({ [dimension]: 'v1' }, {}), false);
    });
  }

  it('treats non-core dimensions the same way', () => {
    assert.equal(conditionMatches({ travel_mode: 'rail' }, { travel_mode: 'rail' }), true);
    assert.equal(conditionMatches({ travel_mode: 'rail' }, { travel_mode: 'air' }), false);
  });

  it('matches an array condition only when it includes the context value', () => {
    const condition = { season: ['summer', 'spring'] };
    assert.equal(conditionMatches(condition, { season: 'spring' }), true);
    assert.equal(conditionMatches(condition, { season: 'winter' }), false);
  });

  it('does not match when a condition dimension is absent from the context', () => {
    assert.equal(conditionMatches({ climate: 'hot_humid' }, { season: 'summer' }), false);
    assert.equal(conditionMatches({ climate: ['hot_humid', 'cold'] }, {}), false);
  });

  it('an empty condition matches any context', () => {
    assert.equal(conditionMatches({}, {}), true);
    assert.equal(conditionMatches({}, { climate: 'cold', stress_level: 3 }), true);
  });

  it('requires every entry to match', () => {
    const condition = { climate: 'hot_humid', occasion: 'date_night' };
    assert.equal(conditionMatches(condition, { climate: 'hot_humid', occasion: 'date_night' }), true);
    assert.equal(conditionMatches(condition, { climate: 'hot_humid', occasion: 'work' }), false);
    assert.equal(conditionMatches(condition, { climate: 'hot_humid' }), false);
  });

  it('ignores extra context dimensions', () => {
    assert.equal(conditionMatches({ climate: 'cold' }, { climate: 'cold', time_of_day: 'evening' }), true);
  });

  it('compares numbers and booleans strictly', () => {
    assert.equal(conditionMatches({ stress_level: 3 }, { stress_level: 3 }), true);
    assert.equal(conditionMatches({ stress_level: '3' }, { stress_level: 3 }), false);
    assert.equal(conditionMatches({ stress_level: [1, 2, 3] }, { stress_level: 3 }), true);
    assert.equal(conditionMatches({ budget_sensitivity: true }, { budget_sensitivity: true }), true);
    assert.equal(conditionMatches({ budget_sensitivity: true }, { budget_sensitivity: 'true' }), false);
  });

  it('does not treat inherited properties as supplied dimensions', () => {
    assert.equal(conditionMatches({ constructor: Object }, {}), false);
  });
});
