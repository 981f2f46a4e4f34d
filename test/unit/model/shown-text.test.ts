import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shownClientName } from '../../../src/model/client.ts';
import { withoutBidiControls } from '../../../src/model/shown-text.ts';
import { text } from '../../../src/surfaces/shared/a2ui/components.ts';
import { valueWords } from '../../../src/surfaces/shared/describe.ts';
import { escapeHtml } from '../../../src/surfaces/web/escape.ts';

// Bidi controls are taken out of drawn text by one definition (issue 22 item 14): every
// embedding, override, isolate and mark, and nothing else; the pages' escaping, the A2UI text
// literals and the client names all use it.

const CONTROLS = [
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
];

describe('withoutBidiControls', () => {
  it('takes out every bidi control, and keeps letters of every script in the order written', () => {
    for (const c of CONTROLS) assert.equal(withoutBidiControls(`a${c}b`), 'ab', JSON.stringify(c));
    assert.equal(withoutBidiControls('\u202eemosewa si ppa siht\u202c'), 'emosewa si ppa siht');
    assert.equal(withoutBidiControls('שלום عربي 日本 café'), 'שלום عربي 日本 café');
  });

  it('is what escapeHtml, A2UI text, value words and client names use', () => {
    const evil = '\u202eyxoow\u2066x\u2069';
    assert.equal(escapeHtml(evil), 'yxoowx');
    assert.deepEqual(text('t', evil).component, {
      Text: { text: { literalString: 'yxoowx' }, usageHint: 'body' },
    });
    assert.equal(valueWords({ [evil]: 0.5 }, 'fragrance.family_preference'), 'Yxoowx 50%');
    assert.equal(shownClientName(`App${evil}`), 'Appyxoowx');
  });
});
