import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../../../src/model/claim.ts';
import {
  claimCard,
  consentRequestForm,
  grantCard,
  profileDiffView,
  proposalCard,
  type SurfaceParts,
  suggestionGroup,
} from '../../../../../src/surfaces/shared/a2ui/index.ts';
import { actionOf, allWords, ofType, typeOf } from '../../../../support/a2ui-oracles.ts';
import { appNameOf, DEMO_CLAIMS, DIFF, GRANTS, NOW, PROPOSAL, REQUESTS, SUGGESTIONS } from './fixtures.ts';

// What each archetype must show and offer (bindings/a2ui.md): stated and inferred told apart, a
// value widget per type, the actions with the object's id in their context, expiry relative to
// now, each kind of change, and a form that can only narrow.

function actions(parts: SurfaceParts): Map<string, Array<{ key: string; value: Record<string, unknown> }>> {
  return new Map(ofType(parts, 'Button').map((b) => [actionOf(b).name, actionOf(b).context]));
}

function byKind(kind: Claim['source']['kind']): Claim {
  const c = DEMO_CLAIMS.find((x) => x.source.kind === kind);
  assert.ok(c, kind);
  return c;
}

const sourceLine = (parts: SurfaceParts) => {
  const icon = ofType(parts, 'Icon')[0];
  const words = parts.components.find((c) => c.id.endsWith('-source-words'));
  assert.ok(icon && words);
  return { icon: typeOf(icon)[1], words: typeOf(words)[1] };
};

describe('ClaimCard', () => {
  it('renders a stated claim and each kind of inferred one differently (icon, words, weight)', () => {
    const stated = sourceLine(claimCard(byKind('user_stated'), NOW));
    assert.deepEqual(stated.icon.name, { literalString: 'person' });
    assert.deepEqual(stated.words.text, { literalString: 'You said this' });
    const seen = new Set<string>();
    for (const kind of ['observed', 'inferred', 'imported', 'derived_aggregate'] as const) {
      const line = sourceLine(claimCard(byKind(kind), NOW));
      assert.notDeepEqual(line.icon, stated.icon, kind);
      assert.notEqual(line.words.usageHint, stated.words.usageHint, kind);
      const words = (line.words.text as { literalString: string }).literalString;
      assert.match(words, /^Not said by you: /);
      seen.add(words);
    }
    assert.equal(seen.size, 4, 'each inferred kind says how it was inferred');
  });

  it('offers confirm, edit and reject, each naming the claim', () => {
    for (const claim of DEMO_CLAIMS) {
      const a = actions(claimCard(claim, NOW));
      assert.deepEqual([...a.keys()], ['confirm', 'edit', 'reject']);
      for (const context of a.values()) {
        assert.deepEqual(context[0], { key: 'claim_id', value: { literalString: claim.claim_id } });
      }
    }
  });

  it('offers "Change it" only where the page can change the value, and its buttons weigh the same (issue 26)', () => {
    const novelty = DEMO_CLAIMS.find((c) => c.key === 'novelty_tolerance') as Claim;
    const locked = { ...novelty, review: { ...novelty.review, user_editable: false } };
    assert.deepEqual([...actions(claimCard(locked, NOW)).keys()], ['confirm', 'reject']);
    const free = { ...novelty, namespace: 'fragrance', key: 'not_a_key' };
    assert.deepEqual([...actions(claimCard(free, NOW)).keys()], ['confirm', 'reject']);
    for (const claim of DEMO_CLAIMS) {
      for (const b of ofType(claimCard(claim, NOW), 'Button')) {
        assert.equal(typeOf(b)[1].primary, false, `${claim.key}: no button is filled`);
      }
    }
    for (const b of ofType(suggestionGroup(SUGGESTIONS.overYours, appNameOf), 'Button')) {
      assert.equal(typeOf(b)[1].primary, false);
    }
  });

  it('picks the value widget by type: a slider for 0–1, rows for a map, a text otherwise', () => {
    const novelty = claimCard(DEMO_CLAIMS.find((c) => c.key === 'novelty_tolerance') as Claim, NOW);
    const [slider] = ofType(novelty, 'Slider');
    assert.ok(slider);
    assert.deepEqual(typeOf(slider)[1].value, { path: '/edit/percent' });
    assert.deepEqual(novelty.data[1], { path: '/edit', contents: [{ key: 'percent', valueNumber: 62 }] });
    assert.deepEqual(actions(novelty).get('edit')?.[1], {
      key: 'value_percent',
      value: { path: '/edit/percent' },
    });
    assert.match(allWords(novelty), /High \(62%\)/);

    const family = claimCard(DEMO_CLAIMS.find((c) => c.key === 'family_preference') as Claim, NOW);
    assert.equal(ofType(family, 'Slider').length, 0);
    assert.equal(ofType(family, 'List').length, 1);
    assert.equal(
      ofType(family, 'Row').length,
      4 + 2,
      'a row per scent family, the source line and the actions',
    );
    assert.match(allWords(family), /Woody\nVery high \(82%\)/);

    const stay = claimCard(DEMO_CLAIMS.find((c) => c.key === 'accommodation_style') as Claim, NOW);
    assert.match(allWords(stay), /Small, stylish hotel/);
    const days = claimCard(DEMO_CLAIMS.find((c) => c.key === 'trip_duration_preference_days') as Claim, NOW);
    assert.match(allWords(days), /6 days/);
    const aversions = claimCard(DEMO_CLAIMS.find((c) => c.key === 'note_aversions') as Claim, NOW);
    assert.match(allWords(aversions), /Oud, Patchouli heavy/);
  });

  it('says when it was last confirmed and when it expires, relative to now', () => {
    const novelty = claimCard(DEMO_CLAIMS.find((c) => c.key === 'novelty_tolerance') as Claim, NOW);
    assert.match(
      allWords(novelty),
      /Last confirmed 1 March 2027\. Expires in 12 months \(29 February 2028\)/,
    );
  });

  it('a proposal card names the app, and its actions name the proposal and the claim', () => {
    const parts = proposalCard(PROPOSAL, 'Fragrance Demo App', NOW);
    assert.match(allWords(parts), /Suggested by Fragrance Demo App on 27 February 2027/);
    assert.match(allWords(parts), /Waiting for you to confirm it/);
    const a = actions(parts);
    assert.deepEqual([...a.keys()], ['confirm', 'edit', 'reject']);
    for (const context of a.values()) {
      assert.deepEqual(context.slice(0, 2), [
        { key: 'proposal_id', value: { literalString: PROPOSAL.proposal_id } },
        { key: 'claim_id', value: { literalString: PROPOSAL.claim.claim_id } },
      ]);
    }
    assert.equal(parts.data[0]?.path, '/proposal');
  });
});

describe('suggestions for one preference (issue 22 item 6)', () => {
  it('shows what it says now once, then each suggestion as now → suggested, and warns over the person’s own words', () => {
    const parts = suggestionGroup(SUGGESTIONS.overYours, appNameOf);
    const words = allWords(parts);
    assert.equal(words.match(/Now: /g)?.length, 1, 'the current value once');
    assert.match(words, /Now: Oud, Patchouli heavy\. You said this, very sure \(95%\)\./);
    assert.match(words, /2 suggestions for this, oldest first\./);
    assert.match(
      words,
      /Suggested by Fragrance Demo App on 27 February 2027\nTo Vanilla\. Not said by you: guessed/,
    );
    assert.match(words, /Suggested by an app you allowed on 28 February 2027\nTo Musk, Oud\./);
    assert.equal(words.match(/Accepting it replaces what you said yourself\./g)?.length, 2);
    // Each row's buttons decide its own proposal.
    // A list is not changed on the card: accept or turn down, no "Change it first".
    const buttons = ofType(parts, 'Button').map(actionOf);
    assert.deepEqual(
      buttons.map((b) => b.name),
      ['confirm', 'reject', 'confirm', 'reject'],
    );
    for (const [i, s] of SUGGESTIONS.overYours.suggestions.entries()) {
      for (const b of buttons.slice(2 * i, 2 * i + 2)) {
        assert.deepEqual(b.context[0], { key: 'proposal_id', value: { literalString: s.proposal_id } });
      }
    }
  });

  it('a suggestion for a preference not stored says so, and its slider sends the position', () => {
    const parts = suggestionGroup(SUGGESTIONS.fresh, appNameOf);
    assert.match(allWords(parts), /Now: not in your profile\./);
    assert.doesNotMatch(allWords(parts), /replaces what you said/);
    const edit = ofType(parts, 'Button')
      .map(actionOf)
      .find((a) => a.name === 'edit');
    assert.deepEqual(edit?.context.at(-1), { key: 'value_percent', value: { path: '/edit/s-3' } });
    assert.deepEqual(parts.data.at(-1), { path: '/edit', contents: [{ key: 's-3', valueNumber: 30 }] });
  });
});

describe('GrantCard', () => {
  it('names the app, sums up the scope, tells the expiry relative to now and offers revoke', () => {
    const parts = grantCard({ grant: GRANTS.expiring, clientName: 'Fragrance Demo App' }, NOW);
    const words = allWords(parts);
    assert.match(words, /^Fragrance Demo App\nRegistered as “fragrance-demo”/);
    assert.match(words, /What for: Recommend things to you and Tailor what it shows you/);
    assert.match(words, /In: Fragrance\nSees: General traits and Fragrance preferences\nOnly 2 preferences/);
    assert.match(words, /Expires in 23 days \(24 March 2027\)/);
    assert.deepEqual(actions(parts).get('revoke'), [
      { key: 'grant_id', value: { literalString: GRANTS.expiring.grant_id } },
    ]);
  });

  it('a grant without expiry says it lasts until revoked; a revoked one offers no revoke', () => {
    const open = grantCard({ grant: GRANTS.open }, NOW);
    assert.match(allWords(open), /Does not expire: it lasts until you revoke it/);
    assert.match(allWords(open), /Every preference of those kinds/);
    assert.ok(actions(open).has('revoke'));
    const revoked = grantCard({ grant: GRANTS.revoked }, NOW);
    assert.match(allWords(revoked), /You revoked it on 28 February 2027/);
    assert.equal(actions(revoked).size, 0);
  });
});

describe('ProfileDiffView', () => {
  it('shows one row per claim added, changed and removed, in words', () => {
    assert.deepEqual([DIFF.added.length, DIFF.changed.length, DIFF.removed.length], [1, 1, 1]);
    const parts = profileDiffView({
      profile_id: 'ppx:profile:demo',
      from: '2027-02-21T00:00:00Z',
      to: NOW.toISOString(),
      diff: DIFF,
    });
    const words = allWords(parts);
    assert.match(words, /1 added, 1 changed, 1 removed/);
    assert.match(words, /Added: Scent families you like\nWoody 82%/);
    assert.match(
      words,
      /Changed: Being with people\nFrom Medium \(48%\) to Very high \(80%\)\. How sure: was very sure \(90%\), now very sure \(95%\)\./,
    );
    assert.match(words, /Removed: Strong sensations\nIt was Medium \(55%\)\./);
    const [listed] = ofType(parts, 'List');
    assert.ok(listed);
    assert.equal((typeOf(listed)[1].children as { explicitList: string[] }).explicitList.length, 3);
  });
});

describe('ConsentRequestForm', () => {
  const parts = consentRequestForm(REQUESTS.several, 'Travel Demo Agent', NOW);

  it('offers approve, edit and reject, naming the request; edit sends the choices', () => {
    const a = actions(parts);
    const ref = { key: 'grant_request_id', value: { literalString: REQUESTS.several.grant_request_id } };
    assert.deepEqual(a.get('approve'), [ref]);
    assert.deepEqual(a.get('edit'), [ref, { key: 'choice', value: { path: '/choice' } }]);
    assert.deepEqual(a.get('reject'), [ref]);
  });

  it('has a box per purpose, area, kind, key and operation asked for, bound to /choice, ticked as asked', () => {
    const d = REQUESTS.several.grant_draft;
    const boxes = ofType(parts, 'CheckBox').map((b) => (typeOf(b)[1].value as { path: string }).path);
    const expected = [
      ...d.purposes.map((_, i) => `/choice/purposes/${i}`),
      ...d.allowed_domains.map((_, i) => `/choice/domains/${i}`),
      ...d.allowed_namespaces.map((_, i) => `/choice/namespaces/${i}`),
      ...d.allowed_claim_keys.map((_, i) => `/choice/keys/${i}`),
      ...d.allowed_operations.map((_, i) => `/choice/operations/${i}`),
    ];
    assert.deepEqual(boxes, expected);
    const words = allWords(parts);
    for (const w of [
      'General traits',
      'Travel preferences',
      'Fragrance preferences',
      'Pace of a trip',
      'Scents you dislike',
    ]) {
      assert.ok(words.includes(w), w);
    }
    const choice = parts.data.find((x) => x.path === '/choice');
    assert.deepEqual(
      choice?.contents.find((e) => e.key === 'namespaces'),
      {
        key: 'namespaces',
        valueMap: [
          { key: '0', valueBoolean: true },
          { key: '1', valueBoolean: true },
          { key: '2', valueBoolean: true },
        ],
      },
    );
  });

  it('offers only the asked policies and stricter ones, and an expiry no later than asked', () => {
    const options = ofType(parts, 'MultipleChoice').map((m) =>
      (typeOf(m)[1].options as Array<{ value: string }>).map((o) => o.value),
    );
    assert.deepEqual(options, [
      ['allow_with_review', 'deny'],
      ['auto_for_low_risk', 'review_required', 'forbidden'],
    ]);
    assert.match(
      allWords(parts),
      /It asks until 31 March 2027 \(in 30 days\)\. You can choose an earlier day\./,
    );
    const once = consentRequestForm(REQUESTS.once, undefined, NOW);
    assert.match(allWords(once), /^An app asks to use your preferences/);
    assert.match(allWords(once), /\(tomorrow\), and for one use only/);
    assert.equal(ofType(once, 'CheckBox').length, 4, 'no key boxes when no keys were named');
  });
});
