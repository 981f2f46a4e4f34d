import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeKey } from '../../../../src/model/claim.ts';
import { SUPPORTED_EXTENSIONS } from '../../../../src/model/extensions/index.ts';
import { valueWords } from '../../../../src/surfaces/shared/describe.ts';
import { KEY_WORDS } from '../../../../src/surfaces/shared/key-words.ts';

// The consent page names every vocabulary key in words (key-words.ts): a key added to a
// vocabulary without them would reach the page as a bare name.

describe('consent page words for the vocabularies', () => {
  for (const ext of SUPPORTED_EXTENSIONS) {
    for (const def of ext.keys) {
      const key = normalizeKey(`${ext.namespace}.${def.key}`);
      it(`${key} has a label, a sentence and words for each allowed value`, () => {
        const words = KEY_WORDS[key];
        assert.ok(words, `no words for ${key}`);
        assert.ok(words.label.length > 0 && !words.label.includes('_'));
        assert.match(words.about, /^[A-Z].*\.$/);
        assert.doesNotMatch(words.about, /\b(MUST|SHOULD|MAY)\b|\[0/);
        for (const v of def.allowed_values ?? []) assert.ok(words.values?.[v], `${key}: no words for "${v}"`);
      });
    }
  }

  it('values: a share as a word and a percentage, units, names, lists and maps in words', () => {
    assert.equal(valueWords(0.62, 'novelty_tolerance', 'normalized_0_1'), 'High (62%)');
    assert.equal(valueWords(0.05, 'fragrance.sweetness_preference'), 'Very low (5%)');
    assert.equal(valueWords(7, 'travel.trip_duration_preference_days'), '7 days');
    assert.equal(valueWords(1, 'travel.trip_duration_preference_days'), '1 day');
    assert.equal(valueWords('small_group', 'travel.group_size_preference'), 'In a small group');
    assert.equal(valueWords(['oud', 'patchouli_heavy'], 'fragrance.note_aversions'), 'Oud, Patchouli heavy');
    assert.equal(
      valueWords(
        { citrus: 0.4, woody: 0.8, floral: 0.1, aquatic: 0.3, gourmand: 0.2 },
        'fragrance.family_preference',
      ),
      'Woody 80%, Citrus 40%, Aquatic 30%, Gourmand 20%, and 1 more',
    );
  });
});
