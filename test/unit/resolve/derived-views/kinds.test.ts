import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../../src/model/claim.ts';
import { DerivedView } from '../../../../src/model/derived-view.ts';
import { compatibility } from '../../../../src/resolve/derived-views/compatibility.ts';
import type { ViewOutput } from '../../../../src/resolve/derived-views/contract.ts';
import {
  DERIVED_VIEW_KINDS,
  derivedViewKind,
  derivedViewKindNames,
} from '../../../../src/resolve/derived-views/index.ts';
import { match } from '../../../../src/resolve/derived-views/match.ts';
import { recommendationBasis } from '../../../../src/resolve/derived-views/recommendation-basis.ts';
import { c, NOW, orders } from './helpers.ts';

// Each kind's compute, with exact numbers (docs/derived-views.md). Values are chosen to be
// distinctive (0.6173, 0.4219…) so a raw value in the output would be visible.

const RAW = ['0.6173', '0.4219', '0.5837', '0.7311', '0.2291', '0.4407', '0.8123', 'oud-xyz', 'boutique'];

const SUBJECT: Claim[] = [
  c('novelty_tolerance', 0.6173, 0.8),
  c('novelty_tolerance', 0.1, 0.3), // a weaker duplicate: the most confident claim counts
  c('social_energy_preference', 0.4219, 0.9),
  c('ambiguity_tolerance', 0.5837, 0.4),
  c('fragrance.intensity_preference', 0.7311, 0.6),
  c('fragrance.note_aversions', ['oud-xyz'], 0.95),
  c('fragrance.family_preference', { woody: 0.8123 }, 0.7),
  c('travel.trip_duration_preference_days', 6, 0.6),
  c('travel.accommodation_style', 'boutique', 0.9),
];

const COUNTERPART: Claim[] = [
  c('novelty_tolerance', 0.2291, 0.7),
  c('social_energy_preference', 0.4407, 0.5),
  c('risk_tolerance', 0.9, 0.9),
  c('fragrance.intensity_preference', 0.7311, 0.9),
];

/** The serialized output never carries a claim value: no number, string or list of the input. */
function assertNoRawValues(out: ViewOutput): void {
  const text = JSON.stringify(out);
  for (const raw of RAW) assert.ok(!text.includes(raw), `raw value ${raw} in ${text}`);
  for (const v of Object.values(out.signals)) {
    assert.equal(typeof v, 'number');
    assert.ok(v >= 0 && v <= 1, `signal ${v} outside [0, 1]`);
  }
}

/** Every dotted signal is a basis key; the others are the kind's aggregates. */
function assertSignalsInBasis(out: ViewOutput, aggregates: string[]): void {
  for (const key of Object.keys(out.signals)) {
    if (key.includes('.')) assert.ok(out.basis.includes(key), `${key} not in basis`);
    else assert.ok(aggregates.includes(key), `unexpected aggregate ${key}`);
  }
}

describe('derived-view registry', () => {
  it('registers match, compatibility and recommendation_basis, one shape each', () => {
    assert.deepEqual(derivedViewKindNames(), ['match', 'compatibility', 'recommendation_basis']);
    for (const kind of DERIVED_VIEW_KINDS) {
      assert.equal(derivedViewKind(kind.kind), kind);
      assert.ok(kind.purposes.length > 0);
      assert.equal(typeof kind.compute, 'function');
    }
    assert.equal(derivedViewKind('risk_profile'), undefined);
    assert.deepEqual(compatibility.purposes, ['matching']);
  });

  it('each body is strict: an unknown field names itself', () => {
    for (const kind of DERIVED_VIEW_KINDS) {
      const r = kind.body.safeParse({
        counterpart_grant_id: 'x',
        target: { novelty_tolerance: 0.5 },
        extra: 1,
      });
      assert.equal(r.success, false);
      assert.ok(r.error?.issues.some((i) => i.code === 'unrecognized_keys' && i.keys.includes('extra')));
    }
  });
});

describe('recommendation_basis', () => {
  const run = (claims: Claim[], context = {}) => recommendationBasis.compute({ claims, context, now: NOW });

  it('signal = 0.5 + (value − 0.5) × confidence for each normalized claim, plus mean_confidence', () => {
    const out = run(SUBJECT);
    assert.deepEqual(out.signals, {
      'core.ambiguity_tolerance': 0.5335,
      'core.novelty_tolerance': 0.5938,
      'core.social_energy_preference': 0.4297,
      'fragrance.intensity_preference': 0.6387,
      mean_confidence: 0.675,
    });
    assert.deepEqual(out.basis, [
      'core.ambiguity_tolerance',
      'core.novelty_tolerance',
      'core.social_energy_preference',
      'fragrance.intensity_preference',
    ]);
    assert.deepEqual(out.warnings, [
      'ambiguity tolerance rests on a low-confidence claim: its signal stays near neutral.',
    ]);
    assert.equal(out.explanations.length, 5);
    assert.equal(out.explanations[1], 'ambiguity tolerance: moderate (confidence moderate).');
    assertNoRawValues(out);
    assertSignalsInBasis(out, ['mean_confidence']);
  });

  it('is deterministic and independent of claim order', () => {
    const outs = orders(SUBJECT).map((claims) => run(claims));
    for (const o of outs) assert.deepEqual(o, outs[0]);
  });

  it('names the context dimensions, never their values', () => {
    const out = run(SUBJECT, { occasion: 'date_night', climate: 'hot_humid' });
    assert.equal(out.explanations[1], 'Resolved for the supplied context (climate, occasion).');
    assert.ok(!JSON.stringify(out).includes('date_night'));
  });

  it('no normalized claim: no signals, a warning', () => {
    const out = run([c('fragrance.note_aversions', ['oud-xyz'], 0.9)]);
    assert.deepEqual(out.signals, {});
    assert.deepEqual(out.basis, []);
    assert.equal(out.warnings.length, 1);
  });
});

describe('match', () => {
  const target = {
    novelty_tolerance: 0.7,
    'fragrance.intensity_preference': 0.2,
    'core.risk_tolerance': 0.5,
  };
  const run = (claims: Claim[]) =>
    match.compute({
      claims,
      target: {
        'core.novelty_tolerance': 0.7,
        'fragrance.intensity_preference': 0.2,
        'core.risk_tolerance': 0.5,
      },
      context: {},
      now: NOW,
    });

  it('per-key closeness 1 − |value − target|, overall weighted by confidence, coverage', () => {
    const out = run(SUBJECT);
    assert.deepEqual(out.signals, {
      'core.novelty_tolerance': 0.9173,
      'fragrance.intensity_preference': 0.4689,
      overall_match: 0.7251,
      coverage: 0.6667,
    });
    assert.deepEqual(out.basis, ['core.novelty_tolerance', 'fragrance.intensity_preference']);
    assert.deepEqual(out.warnings, [
      'No visible claim for risk tolerance: it does not count toward the match.',
      'Potential mismatch in fragrance intensity preference.',
    ]);
    assertNoRawValues(out);
    assertSignalsInBasis(out, ['overall_match', 'coverage']);
  });

  it('is deterministic and independent of claim order', () => {
    const outs = orders(SUBJECT).map(run);
    for (const o of outs) assert.deepEqual(o, outs[0]);
  });

  it('body: target keys must be registered normalized keys, values in [0, 1], at least one', () => {
    assert.equal(match.body.safeParse({ target }).success, true);
    const bad = [
      { target: {} },
      { target: { novelty_tolerance: 1.2 } },
      { target: { 'travel.accommodation_style': 0.5 } },
      { target: { 'nowhere.key': 0.5 } },
      { target: { 'Bad Key': 0.5 } },
      {},
    ];
    for (const body of bad) assert.equal(match.body.safeParse(body).success, false, JSON.stringify(body));
  });
});

describe('compatibility', () => {
  const run = (claims: Claim[], counterpart: Claim[]) =>
    compatibility.compute({ claims, counterpart, context: {}, now: NOW });

  it('alignment 1 − |a − b| over core traits both hold; overall weighted by the lower confidence', () => {
    const out = run(SUBJECT, COUNTERPART);
    assert.deepEqual(out.signals, {
      'core.novelty_tolerance': 0.6118,
      'core.social_energy_preference': 0.9812,
      overall_alignment: 0.7657,
    });
    // ambiguity (only A), risk (only B) and the fragrance key (not a core trait) are left out.
    assert.deepEqual(out.basis, ['core.novelty_tolerance', 'core.social_energy_preference']);
    assert.deepEqual(out.explanations.slice(1), [
      'The profiles differ somewhat on novelty tolerance.',
      'Both profiles are close on social energy preference.',
    ]);
    assert.deepEqual(out.warnings, []);
    assertNoRawValues(out);
    assertSignalsInBasis(out, ['overall_alignment']);
  });

  it('is symmetric and independent of claim order', () => {
    const a = run(SUBJECT, COUNTERPART);
    assert.deepEqual(run(COUNTERPART, SUBJECT).signals, a.signals);
    for (const claims of orders(SUBJECT)) assert.deepEqual(run(claims, [...COUNTERPART].reverse()), a);
  });

  it('warns of a mismatch and of low confidence', () => {
    const out = run(SUBJECT, [c('novelty_tolerance', 0, 0.7), c('social_energy_preference', 0.4407, 0.3)]);
    assert.equal(out.signals['core.novelty_tolerance'], 0.3827);
    assert.deepEqual(out.warnings, [
      'Potential mismatch in novelty tolerance.',
      'social energy preference rests on a low-confidence claim in one profile.',
    ]);
  });

  it('nothing shared: no signals, a warning', () => {
    const out = run(SUBJECT, [c('risk_tolerance', 0.9, 0.9)]);
    assert.deepEqual(out.signals, {});
    assert.deepEqual(out.basis, []);
    assert.equal(out.warnings.length, 1);
  });

  it('a full view built from an output is valid against the derived-view model', () => {
    const out = run(SUBJECT, COUNTERPART);
    const view = {
      view_id: 'ppx:view:test',
      view_kind: 'compatibility',
      subject_id: 'ppx:subject:x',
      grantee_id: 'dating-demo',
      created_at: NOW.toISOString(),
      expires_at: new Date(NOW.getTime() + 3_600_000).toISOString(),
      ...out,
    };
    assert.equal(DerivedView.safeParse(view).success, true);
  });
});
