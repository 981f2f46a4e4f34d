import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import {
  isSupportedNamespace,
  supportedNamespaces,
  vocabularyProblems,
} from '../../../src/model/extensions/index.ts';

// (d) vocabularyProblems: the registered vocabularies (core, fragrance, travel) decide which
// namespaces, keys, value types and value shapes a claim may have.

function claim(namespace: string, key: string, value: unknown, extra: Partial<Claim> = {}): Claim {
  return {
    claim_id: 'ppx:claim:v1',
    type: 'preference',
    namespace,
    key,
    value,
    confidence: 0.8,
    source: { kind: 'user_stated' },
    ...extra,
  };
}

const where = (ns: string, key: string) => `claim ppx:claim:v1 (${ns}.${key})`;

describe('vocabularyProblems', () => {
  it('supports exactly core, fragrance and travel', () => {
    assert.deepEqual(supportedNamespaces(), ['core', 'fragrance', 'travel']);
    assert.equal(isSupportedNamespace('weather'), false);
  });

  it('a valid core claim has no problems', () => {
    assert.deepEqual(
      vocabularyProblems(
        claim('core', 'novelty_tolerance', 0.62, { value_type: 'float', units: 'normalized_0_1' }),
      ),
      [],
    );
  });

  it('unknown namespace', () => {
    assert.deepEqual(vocabularyProblems(claim('weather', 'rain_tolerance', 0.5)), [
      `${where('weather', 'rain_tolerance')}: namespace "weather" is not supported by this provider`,
    ]);
  });

  it('unknown key in a known namespace', () => {
    assert.deepEqual(vocabularyProblems(claim('core', 'family_preference', 0.5)), [
      `${where('core', 'family_preference')}: key "family_preference" is not defined in namespace "core"`,
    ]);
  });

  it('a namespace-prefixed key is not a key of the namespace', () => {
    assert.equal(vocabularyProblems(claim('fragrance', 'fragrance.note_aversions', ['oud'])).length, 1);
  });

  it('wrong value_type', () => {
    assert.deepEqual(vocabularyProblems(claim('core', 'novelty_tolerance', 0.5, { value_type: 'int' })), [
      `${where('core', 'novelty_tolerance')}: value_type must be "float", not "int"`,
    ]);
  });

  it('a missing value_type is taken from the vocabulary', () => {
    assert.deepEqual(vocabularyProblems(claim('travel', 'trip_duration_preference_days', 6)), []);
  });

  it('wrong units on a normalized key', () => {
    assert.deepEqual(vocabularyProblems(claim('core', 'risk_tolerance', 0.5, { units: 'percent' })), [
      `${where('core', 'risk_tolerance')}: units must be "normalized_0_1"`,
    ]);
  });

  describe('value shape per value type', () => {
    const cases: [string, string, string, unknown, string | undefined][] = [
      // [value type, namespace, key, value, expected problem]
      ['float', 'core', 'budget_sensitivity', 0.4, undefined],
      ['float', 'core', 'budget_sensitivity', '0.4', 'value must be a number'],
      ['float', 'core', 'budget_sensitivity', Number.NaN, 'value must be a number'],
      ['float', 'core', 'budget_sensitivity', null, 'value must be a number'],
      ['int', 'travel', 'trip_duration_preference_days', 7, undefined],
      ['int', 'travel', 'trip_duration_preference_days', 6.5, 'value must be an integer'],
      ['int', 'travel', 'trip_duration_preference_days', '7', 'value must be an integer'],
      ['string', 'travel', 'accommodation_style', 'boutique', undefined],
      ['string', 'travel', 'accommodation_style', 3, 'value must be a string'],
      ['string_list', 'fragrance', 'note_aversions', ['oud', 'cashmeran'], undefined],
      ['string_list', 'fragrance', 'note_aversions', [], undefined],
      ['string_list', 'fragrance', 'note_aversions', ['oud', 3], 'value must be a list of strings'],
      ['string_list', 'fragrance', 'note_aversions', 'oud', 'value must be a list of strings'],
      ['map<string,float>', 'fragrance', 'family_preference', { woody: 0.8 }, undefined],
      [
        'map<string,float>',
        'fragrance',
        'family_preference',
        { woody: 'high' },
        'value must be an object of numbers',
      ],
      ['map<string,float>', 'fragrance', 'family_preference', [0.8], 'value must be an object of numbers'],
      ['map<string,float>', 'fragrance', 'family_preference', null, 'value must be an object of numbers'],
    ];
    for (const [type, ns, key, value, problem] of cases) {
      it(`${type}: ${JSON.stringify(value) ?? String(value)} → ${problem ?? 'ok'}`, () => {
        const expected = problem ? [`${where(ns, key)}: ${problem}`] : [];
        assert.deepEqual(vocabularyProblems(claim(ns, key, value)), expected);
      });
    }
  });

  describe('normalized values lie in [0, 1]', () => {
    for (const v of [0, 1, 0.5]) {
      it(`core value ${v} is accepted`, () => {
        assert.deepEqual(vocabularyProblems(claim('core', 'novelty_tolerance', v)), []);
      });
    }
    for (const v of [-0.01, 1.01, 2]) {
      it(`core value ${v} is refused`, () => {
        assert.deepEqual(vocabularyProblems(claim('core', 'novelty_tolerance', v)), [
          `${where('core', 'novelty_tolerance')}: value must be between 0.0 and 1.0`,
        ]);
      });
    }
    it('a normalized domain key out of range is refused too', () => {
      assert.deepEqual(vocabularyProblems(claim('fragrance', 'intensity_preference', 1.5)), [
        `${where('fragrance', 'intensity_preference')}: value must be between 0.0 and 1.0`,
      ]);
    });
    it('a non-number on a normalized key reports the shape once, not the range', () => {
      assert.deepEqual(vocabularyProblems(claim('core', 'novelty_tolerance', 'high')), [
        `${where('core', 'novelty_tolerance')}: value must be a number`,
      ]);
    });
  });

  describe('travel allowed_values', () => {
    for (const v of ['hostel', 'boutique', 'business', 'luxury', 'homestay', 'rental']) {
      it(`accommodation_style "${v}" is allowed`, () => {
        assert.deepEqual(vocabularyProblems(claim('travel', 'accommodation_style', v)), []);
      });
    }
    it('accommodation_style "castle" is refused, naming the allowed values', () => {
      assert.deepEqual(vocabularyProblems(claim('travel', 'accommodation_style', 'castle')), [
        `${where('travel', 'accommodation_style')}: value must be one of hostel, boutique, business, luxury, homestay, rental`,
      ]);
    });
    it('group_size_preference "crowd" is refused', () => {
      assert.deepEqual(vocabularyProblems(claim('travel', 'group_size_preference', 'crowd')), [
        `${where('travel', 'group_size_preference')}: value must be one of solo, pair, small_group, large_group`,
      ]);
    });
    it('allowed values are case-sensitive', () => {
      assert.equal(vocabularyProblems(claim('travel', 'group_size_preference', 'Solo')).length, 1);
    });
  });

  it('several problems are all reported', () => {
    const problems = vocabularyProblems(
      claim('core', 'novelty_tolerance', '0.5', { value_type: 'string', units: 'pct' }),
    );
    assert.deepEqual(problems, [
      `${where('core', 'novelty_tolerance')}: value_type must be "float", not "string"`,
      `${where('core', 'novelty_tolerance')}: value must be a number`,
      `${where('core', 'novelty_tolerance')}: units must be "normalized_0_1"`,
    ]);
  });
});
