import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import { ProvenanceKind } from '../../../src/model/vocabulary.ts';
import { demoProfile } from '../../../src/operations/seed/demo-profile.ts';
import { confidenceWords, isStated } from '../../../src/surfaces/shared/a2ui/words.ts';
import { BANDS, bandOf, confidenceModel } from '../../../web/app/src/plots/confidence.ts';
import { confidenceMix } from '../../../web/app/src/plots/index.ts';
import { assertAccessibleFigure, barTitles, part, tableRows, textOf, wellFormed } from './plots-support.ts';

// "Where your preferences come from, and how sure they are" (web/app/src/plots/confidence.ts):
// per area, said by the person or not, and how sure, in the claim cards' own words.

let n = 0;
function claim(namespace: string, kind: ProvenanceKind, confidence: number, key = 'some_key'): Claim {
  n += 1;
  return {
    claim_id: `ppx:claim:c${n}`,
    type: 'preference',
    namespace,
    key,
    value: 0.5,
    confidence,
    source: { kind },
  };
}

const SAMPLE: Claim[] = [
  claim('core', 'user_stated', 0.95, 'novelty_tolerance'),
  claim('core', 'inferred', 0.55, 'risk_tolerance'),
  claim('core', 'observed', 0.3, 'budget_sensitivity'),
  claim('fragrance', 'user_stated', 0.92, 'patchouli_heavy'),
  claim('fragrance', 'user_stated', 0.8, 'family_preference'),
  claim('fragrance', 'imported', 0.75, 'sillage_preference'),
  claim('fragrance', 'derived_aggregate', 0.1, 'longevity_preference'),
  claim('travel', 'observed', 0.69, 'pace'),
];

describe('confidenceMix', () => {
  it('counts per area what the person said and what was worked out, and how sure each is', () => {
    const html = confidenceMix(SAMPLE, { idPrefix: 'mix' });
    const rows = tableRows(html);
    assert.deepEqual(rows[0], [
      'Group',
      'Said by you',
      'Not said by you',
      'Very sure',
      'Quite sure',
      'Fairly sure',
      'Not very sure',
    ]);
    assert.deepEqual(rows.slice(1), [
      ['General traits', '1', '2', '1', '0', '1', '1'],
      ['Fragrance preferences', '2', '2', '1', '2', '0', '1'],
      ['Travel preferences', '0', '1', '0', '0', '1', '0'],
    ]);
    assert.equal(
      textOf(part(html, 'desc')),
      'Of your 8 preferences in 3 groups, you said 3 yourself and 5 were worked out for you; 4 are quite or very sure.',
    );
  });

  it('draws the same numbers as the table, each segment named in words under its bar', () => {
    const html = confidenceMix(SAMPLE, { idPrefix: 'mix' });
    const rows = tableRows(html);
    const head = rows[0] ?? [];
    const expected = rows.slice(1).flatMap(([, ...cells]) =>
      cells.flatMap((c, i) => {
        if (c === '0') return [];
        const words = (head[i + 1] ?? '').toLowerCase();
        return [i < 2 ? `Who said it: ${c} ${words}` : `How sure: ${c} ${words}`];
      }),
    );
    assert.deepEqual(barTitles(html), expected);
    const notes = [...part(html, 'svg').matchAll(/class="ppx-plot-note"[^>]*>([^<]*)</g)].map((m) => m[1]);
    assert.deepEqual(notes.slice(0, 2), [
      'Who said it: 1 said by you, 2 not said by you',
      'How sure: 1 very sure, 1 fairly sure, 1 not very sure',
    ]);
    const heads = [...part(html, 'svg').matchAll(/class="ppx-plot-label"[^>]*>([^<]*)</g)].map((m) => m[1]);
    assert.deepEqual(heads, [
      'General traits: 3 preferences',
      'Fragrance preferences: 4 preferences',
      'Travel preferences: 1 preference',
    ]);
  });

  it('tells stated from inferred as the claim cards do, and not by colour alone', () => {
    for (const kind of ProvenanceKind.options) {
      const [area] = confidenceModel([claim('core', kind, 0.5)]);
      assert.equal(area?.stated, isStated(kind) ? 1 : 0, kind);
      assert.equal(area?.notStated, isStated(kind) ? 0 : 1, kind);
    }
    const html = confidenceMix(SAMPLE, { idPrefix: 'mix' });
    // "Not said by you" is striped (a pattern), "said by you" solid.
    assert.match(html, /<title>Who said it: 2 not said by you<\/title>/);
    assert.match(html, /fill="url\(#mix-stripes\)"><title>Who said it: 2 not said by you/);
    assert.match(html, /fill="#[0-9a-f]{6}"><title>Who said it: 2 said by you/);
  });

  it('bands confidence with confidenceWords, so the chart and the claim cards agree', () => {
    for (const c of [0, 0.1, 0.39, 0.4, 0.55, 0.69, 0.7, 0.89, 0.9, 1]) {
      assert.equal(bandOf(c), confidenceWords(c).replace(/ \(\d+%\)$/, ''), String(c));
      assert.ok(BANDS.includes(bandOf(c)));
    }
    assert.deepEqual(
      [0.95, 0.8, 0.5, 0.2].map(bandOf),
      ['very sure', 'quite sure', 'fairly sure', 'not very sure'],
      'surest first',
    );
  });

  it('names areas in words, never by key or namespace, and shows no numbers in spec form', () => {
    const demo = (demoProfile(new Date('2026-12-01T00:00:00Z')).claims ?? []) as Claim[];
    assert.ok(demo.length > 3);
    const text = textOf(confidenceMix([...demo, ...SAMPLE, claim('home_garden', 'inferred', 0.5)]));
    for (const c of [...demo, ...SAMPLE]) assert.ok(!text.includes(c.key), `no key name ${c.key}`);
    assert.doesNotMatch(
      text,
      /\bcore\b|\bfragrance\b|\btravel\b|home_garden|user_stated|inferred\b|\[0|0\.\d/,
    );
    assert.match(text, /General traits/);
    assert.match(text, /Home garden/, 'an unknown area in words too');
  });

  it('escapes a hostile area name', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const html = confidenceMix([claim(hostile, 'inferred', 0.5)], { idPrefix: 'h' });
    assert.doesNotMatch(html, /<img/);
    const tags = wellFormed(html);
    assert.ok(tags.every((t) => !('onerror' in t.attrs)));
    assert.ok(tableRows(html)[1]?.[0]?.includes('img src'), 'shown as text');
  });

  it('says so in words when there are no preferences', () => {
    const html = confidenceMix([], { idPrefix: 'e' });
    wellFormed(html);
    assert.match(textOf(html), /Your profile has no preferences yet\./);
    assert.doesNotMatch(html, /<svg|<table/);
  });

  it('is an accessible figure: well-formed, labelled, scalable, strict-CSP safe, ids unique per call', () => {
    assertAccessibleFigure(confidenceMix(SAMPLE, { idPrefix: 'mix' }), 'mix');
    const a = confidenceMix(SAMPLE);
    const b = confidenceMix(SAMPLE);
    const prefixOf = (h: string) => /<figure[^>]* id="([^"]+)"/.exec(h)?.[1] ?? '';
    assert.notEqual(prefixOf(a), prefixOf(b));
    assertAccessibleFigure(a, prefixOf(a));
    assertAccessibleFigure(b, prefixOf(b));
    // A long area name wraps to two lines at most and stays inside the viewBox.
    const long = confidenceMix([claim('a_very_long_area_name_'.repeat(6), 'inferred', 0.5)], {
      idPrefix: 'l',
    });
    const [, , w = 0] = (/viewBox="([^"]+)"/.exec(long)?.[1] ?? '').split(' ').map(Number);
    const labels = [...long.matchAll(/class="ppx-plot-label"[^>]*>([^<]*)</g)].map((m) => m[1] ?? '');
    assert.equal(labels.length, 2);
    for (const l of labels) assert.ok(l.length * 13 * 0.62 <= w, l);
    assert.match(labels[1] ?? '', /…: 1 preference$/, 'the title is cut, not its count');
  });
});
