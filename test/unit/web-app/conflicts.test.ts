import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../src/model/claim.ts';
import type { ClaimHistoryEntry } from '../../../src/model/claim-history.ts';
import type { PendingProposal } from '../../../src/operations/inbox/inbox-state.ts';
import { demoProfile } from '../../../src/operations/seed/demo-profile.ts';
import { versionsOfKey, whoWords } from '../../../web/app/src/claim-versions.ts';
import { findConflicts, keepBothActions, pickActions, sameValue } from '../../../web/app/src/conflicts.ts';

// Conflicts (issue 26 item 4): one key, one situation, sources saying different values; picking
// one keeps the rest in the history.

const CLAIMS = (demoProfile(new Date('2027-03-01T00:00:00Z')).claims ?? []) as Claim[];
const STAY = CLAIMS.find((c) => c.key === 'accommodation_style') as Claim;
const AVERSIONS = CLAIMS.find((c) => c.key === 'note_aversions') as Claim;

const proposal = (n: number, claim: Partial<Claim>, target?: string): PendingProposal => ({
  kind: 'writeback_proposal',
  proposal_id: `ppx:proposal:p-${n}`,
  grant_id: 'ppx:grant:g',
  client_id: 'travel-demo',
  created_at: '2027-03-05T10:00:00Z',
  claim: { ...STAY, claim_id: `ppx:claim:x-${n}`, ...claim, source: { kind: 'inferred' } },
  ...(target !== undefined ? { target_claim_id: target } : {}),
});

describe('findConflicts', () => {
  it('no conflict in the demo profile, nor for a suggestion that says what is stored', () => {
    assert.deepEqual(findConflicts(CLAIMS, []), []);
    assert.deepEqual(findConflicts(CLAIMS, [proposal(1, { value: 'boutique' }, STAY.claim_id)]), []);
  });

  it('a suggestion against what the person said is a conflict, with the stated claim to show now → suggested', () => {
    const [c, ...rest] = findConflicts(CLAIMS, [proposal(1, { value: 'hostel' }, STAY.claim_id)]);
    assert.equal(rest.length, 0);
    assert.equal(c?.key, 'travel.accommodation_style');
    assert.deepEqual(
      c?.sides.map((s) => s.kind),
      ['claim', 'proposal'],
    );
    assert.equal(c?.stated, STAY);
    assert.equal(c?.canKeepBoth, false);
  });

  it('an import and a statement under one key disagree; in another situation they do not', () => {
    const imported: Claim = {
      ...STAY,
      claim_id: 'ppx:claim:imp',
      value: 'rental',
      source: { kind: 'imported' },
    };
    assert.equal(findConflicts([STAY, imported], []).length, 1);
    const elsewhere = { ...imported, applicability: { contexts: ['business_trip'] } };
    assert.deepEqual(findConflicts([STAY, elsewhere], []), []);
  });

  it('a list can keep both: the union, written over the stored claim, the suggestion turned down', () => {
    const [c] = findConflicts(CLAIMS, [
      proposal(2, { ...AVERSIONS, claim_id: 'ppx:claim:y', value: ['vanilla', 'oud'] }, AVERSIONS.claim_id),
    ]);
    assert.ok(c?.canKeepBoth);
    const [write, reject] = keepBothActions(c);
    assert.equal(write?.name, 'propose_updates');
    const claim = (write?.arguments['claims'] as Record<string, unknown>[] | undefined)?.[0];
    assert.deepEqual(claim?.['value'], ['oud', 'patchouli_heavy', 'vanilla']);
    assert.equal(claim?.['claim_id'], AVERSIONS.claim_id);
    assert.deepEqual(reject?.arguments, {
      decisions: [{ proposal_id: 'ppx:proposal:p-2', action: 'reject' }],
    });
  });
});

describe('pickActions', () => {
  const imported: Claim = {
    ...STAY,
    claim_id: 'ppx:claim:imp',
    value: 'rental',
    source: { kind: 'imported' },
  };
  const [c] = findConflicts([STAY, imported], [proposal(3, { value: 'hostel' }, STAY.claim_id)]);
  assert.ok(c);

  it('picking the suggestion accepts it, and removes the other claim (its history stays)', () => {
    assert.deepEqual(pickActions(c, 'ppx:proposal:p-3'), [
      {
        name: 'confirm_updates',
        arguments: { decisions: [{ proposal_id: 'ppx:proposal:p-3', action: 'confirm' }] },
      },
      { name: 'delete_claim', arguments: { claim_id: 'ppx:claim:imp' } },
    ]);
  });

  it('picking what the person said confirms it, turns the suggestion down, removes the import', () => {
    assert.deepEqual(pickActions(c, STAY.claim_id), [
      {
        name: 'confirm_updates',
        arguments: {
          decisions: [
            { claim_id: STAY.claim_id, action: 'confirm' },
            { proposal_id: 'ppx:proposal:p-3', action: 'reject' },
          ],
        },
      },
      { name: 'delete_claim', arguments: { claim_id: 'ppx:claim:imp' } },
    ]);
    assert.deepEqual(pickActions(c, 'nothing'), []);
  });

  it('maps are equal whatever the order of their names', () => {
    assert.ok(sameValue({ a: 1, b: 2 }, { b: 2, a: 1 }));
    assert.ok(!sameValue(['a', 'b'], ['b', 'a']));
  });
});

describe('a preference’s history', () => {
  const entry = (
    seq: number,
    claim: Claim | null,
    change: ClaimHistoryEntry['change'],
    actor: ClaimHistoryEntry['actor'],
  ) => ({
    seq,
    claim_id: claim?.claim_id ?? STAY.claim_id,
    profile_id: 'ppx:profile:demo',
    at: `2027-03-0${seq}T10:00:00Z`,
    claim,
    change,
    actor,
  });
  const you = { kind: 'subject' as const, id: 'did:x' };
  const app = { kind: 'grantee' as const, id: 'travel-demo' };
  const names = (id: string) => (id === 'travel-demo' ? 'Travel Finder' : id);

  it('newest first, each with who and when and what replaced it; a removed claim stays', () => {
    const entries = [
      entry(1, STAY, 'created', you),
      entry(2, { ...STAY, value: 'hostel' }, 'applied_proposal', you),
      entry(3, { ...STAY, claim_id: 'ppx:claim:imp', value: 'rental' }, 'applied_proposal', app),
      entry(4, null, 'deleted', you),
      entry(5, { ...(CLAIMS[0] as Claim) }, 'created', you),
    ];
    entries[3] = { ...entries[3], claim_id: 'ppx:claim:imp' } as (typeof entries)[number];
    const v = versionsOfKey(entries, 'travel.accommodation_style', names);
    assert.deepEqual(
      v.map((x) => [x.value, x.who, x.replacedBy?.value]),
      [
        ['Removed', 'You removed it', undefined],
        ['A rented home', 'Travel Finder suggested it, and it was applied', 'Removed'],
        ['Hostel', 'You accepted a suggested change', undefined],
        ['Small, stylish hotel', 'You added it', 'Hostel'],
      ],
    );
    assert.equal(
      whoWords(entry(1, STAY, 'imported', { kind: 'operator', id: 'op' }), names),
      'An import brought it in',
    );
  });
});
