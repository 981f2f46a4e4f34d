import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../../src/model/claim.ts';
import { vocabularyProblems } from '../../../../src/model/extensions/index.ts';
import { demoProfile } from '../../../../src/operations/seed/demo-profile.ts';
import {
  editProblem,
  nameOf,
  readList,
  readNumber,
  readPercent,
  readRange,
  readScores,
  refusalWords,
  valueKind,
} from '../../../../src/surfaces/shared/value-kind.ts';

// One editor per kind of value the vocabularies allow (issue 26 item 2), chosen from the key's
// registered definition; what the editor reads is what the provider's own check accepts.

const CLAIMS = (demoProfile(new Date('2027-03-01T00:00:00Z')).claims ?? []) as Claim[];
const of = (key: string) => CLAIMS.find((c) => c.key === key) as Claim;

describe('valueKind: the editor for each key', () => {
  it('every demo key has an editor, of the kind its vocabulary says', () => {
    const kinds = Object.fromEntries(CLAIMS.map((c) => [c.key, valueKind(c)?.kind]));
    assert.equal(kinds['novelty_tolerance'], 'score');
    assert.equal(kinds['accommodation_style'], 'choice');
    assert.equal(kinds['note_aversions'], 'list');
    assert.equal(kinds['trip_duration_preference_days'], 'number');
    assert.equal(kinds['family_preference'], 'scores');
    for (const c of CLAIMS) assert.equal(editProblem(c), undefined, c.key);
  });

  it('a choice lists the allowed values in words; a whole number says its unit', () => {
    const stay = valueKind(of('accommodation_style'));
    assert.deepEqual(stay?.kind === 'choice' ? stay.options.find((o) => o.value === 'boutique') : undefined, {
      value: 'boutique',
      label: 'Small, stylish hotel',
    });
    assert.deepEqual(valueKind(of('trip_duration_preference_days')), {
      kind: 'number',
      integer: true,
      unit: 'day',
    });
  });

  it('a locked claim, an unknown key and a free map cannot be changed, and say why', () => {
    const base = of('novelty_tolerance');
    assert.match(editProblem({ ...base, review: { user_editable: false } }) ?? '', /locked/);
    assert.match(editProblem({ ...base, key: 'nope' }) ?? '', /not one this service knows/);
  });
});

describe('reading what the person typed (hints only)', () => {
  it('numbers: any number passes (whole or not is the provider’s check), words do not', () => {
    assert.deepEqual(readNumber('7'), { value: 7 });
    assert.deepEqual(readNumber('2,5'), { value: 2.5 });
    assert.ok('problem' in readNumber('seven'));
    assert.ok('problem' in readNumber(''));
  });

  it('a 0–100 level is the 0–1 value; out of range is a hint', () => {
    assert.deepEqual(readPercent('35'), { value: 0.35 });
    assert.ok('problem' in readPercent('101'));
  });

  it('a range: two numbers, the lower first', () => {
    assert.deepEqual(readRange('3', '10'), { value: { min: 3, max: 10 } });
    assert.match((readRange('10', '3') as { problem: string }).problem, /must not be above/);
    assert.match((readRange('x', '3') as { problem: string }).problem, /^From: /);
  });

  it('a list: trimmed, each once, empty ones left out; names typed as the vocabulary spells them', () => {
    assert.deepEqual(readList([' oud', 'vanilla', 'oud', '']), { value: ['oud', 'vanilla'] });
    assert.equal(nameOf(' Patchouli  heavy '), 'patchouli_heavy');
  });

  it('named levels: each 0–100, each name once', () => {
    assert.deepEqual(
      readScores([
        ['woody', '80'],
        ['citrus', '5'],
      ]),
      { value: { woody: 0.8, citrus: 0.05 } },
    );
    assert.match((readScores([['woody', '150']]) as { problem: string }).problem, /^Woody: /);
    assert.match(
      (
        readScores([
          ['woody', '1'],
          ['woody', '2'],
        ]) as { problem: string }
      ).problem,
      /twice/,
    );
  });

  it('what each editor reads passes the API’s own check (vocabularyProblems)', () => {
    const cases: [string, unknown][] = [
      ['trip_duration_preference_days', (readNumber('9') as { value: unknown }).value],
      ['novelty_tolerance', (readPercent('40') as { value: unknown }).value],
      ['note_aversions', (readList(['oud']) as { value: unknown }).value],
      ['family_preference', (readScores([['woody', '70']]) as { value: unknown }).value],
      ['accommodation_style', 'hostel'],
    ];
    for (const [key, value] of cases) assert.deepEqual(vocabularyProblems({ ...of(key), value }), [], key);
    assert.notDeepEqual(vocabularyProblems({ ...of('trip_duration_preference_days'), value: 2.5 }), []);
  });
});

describe('refusalWords', () => {
  it('says the provider’s value refusal in words', () => {
    const said =
      '1 proposed claim problem(s), nothing was stored: claims[0] (travel.trip_duration_preference_days): claim ppx:claim:proposed (travel.trip_duration_preference_days): value must be an integer.';
    assert.equal(refusalWords(said), 'It was not changed: the value must be a whole number.');
    assert.equal(
      refusalWords('value must be one of hostel, boutique'),
      'It was not changed: the value must be one of the choices offered.',
    );
    assert.equal(refusalWords('You are signed out.'), 'It was not changed: You are signed out.');
  });
});
