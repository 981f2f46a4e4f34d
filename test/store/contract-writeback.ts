import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClaimHistoryInput } from '../../src/model/claim-history.ts';
import type { ProposalRecord } from '../../src/model/proposal.ts';
import type { Store } from '../../src/store/store.ts';
import { at, minimalClaim, modifier, profileRecord, withStore } from '../support/store-records.ts';

let n = 0;
function proposal(profileId: string, overrides: Partial<ProposalRecord> = {}): ProposalRecord {
  n += 1;
  return {
    proposal_id: `ppx:proposal:p-${n}-${Math.random().toString(36).slice(2)}`,
    profile_id: profileId,
    grant_id: 'ppx:grant:g1',
    client_id: 'client_perfumery',
    status: 'pending',
    created_at: at(n),
    claim: minimalClaim({ source: { kind: 'observed' }, review: { review_status: 'pending_confirmation' } }),
    reason: 'review required',
    ...overrides,
  };
}

function entry(profileId: string, claimId: string, minutes: number, deleted = false): ClaimHistoryInput {
  return {
    claim_id: claimId,
    profile_id: profileId,
    at: at(minutes),
    claim: deleted ? null : minimalClaim({ claim_id: claimId }),
    change: deleted ? 'deleted' : 'created',
    actor: { kind: 'subject', id: 'subj' },
  };
}

/** Proposals (compare-and-set decisions) and the append-only claim history (migration 0005). */
export function writebackContract(open: () => Promise<Store>): void {
  describe('write-back: proposals and claim history', () => {
    it(
      'round-trips proposals, lists them by profile and status, and undefined for a missing one',
      withStore(open, async (store) => {
        const p = profileRecord();
        await store.insertProfile(p);
        const a = proposal(p.profile_id);
        const b = proposal(p.profile_id, { status: 'applied', applied_claim_id: a.claim.claim_id });
        await store.insertProposal(b);
        await store.insertProposal(a);
        assert.deepEqual(await store.getProposal(a.proposal_id), a);
        assert.deepEqual(await store.listProposals(p.profile_id), [a, b]);
        assert.deepEqual(await store.listProposals(p.profile_id, 'pending'), [a]);
        assert.deepEqual(await store.listProposals(p.profile_id, 'rejected'), []);
        assert.equal(await store.getProposal('ppx:proposal:missing'), undefined);
        await assert.rejects(store.insertProposal(a));
      }),
    );

    it(
      'transitionProposal is compare-and-set: exactly one of two concurrent decisions wins',
      withStore(open, async (store) => {
        const p = profileRecord();
        await store.insertProfile(p);
        const a = proposal(p.profile_id);
        await store.insertProposal(a);
        const actor = { kind: 'subject' as const, id: 'subj' };
        const results = await Promise.all([
          store.transitionProposal(a.proposal_id, 'pending', {
            status: 'confirmed',
            decided_at: at(9),
            decided_by: actor,
          }),
          store.transitionProposal(a.proposal_id, 'pending', {
            status: 'rejected',
            decided_at: at(9),
            decided_by: actor,
          }),
        ]);
        const winners = results.filter((r) => r !== undefined);
        assert.equal(winners.length, 1);
        const stored = await store.getProposal(a.proposal_id);
        assert.deepEqual(stored, winners[0]);
        assert.deepEqual(stored, { ...a, status: stored?.status, decided_at: at(9), decided_by: actor });
        assert.equal(
          await store.transitionProposal('ppx:proposal:missing', 'pending', { status: 'rejected' }),
          undefined,
        );
      }),
    );

    it(
      'deleting the profile deletes its proposals',
      withStore(open, async (store) => {
        const p = profileRecord();
        await store.insertProfile(p);
        const a = proposal(p.profile_id);
        await store.insertProposal(a);
        await store.deleteProfile(p.profile_id);
        assert.equal(await store.getProposal(a.proposal_id), undefined);
      }),
    );

    it(
      'deleteModifiers removes only the named modifiers of the profile',
      withStore(open, async (store) => {
        const p = profileRecord();
        const other = profileRecord();
        await store.insertProfile(p);
        await store.insertProfile(other);
        const [m1, m2, m3] = [modifier(), modifier(), modifier()];
        await store.putModifiers(p.profile_id, [m1, m2]);
        await store.putModifiers(other.profile_id, [m3]);
        assert.equal(
          await store.deleteModifiers(p.profile_id, [m1.modifier_id, m3.modifier_id, m1.modifier_id]),
          1,
        );
        assert.deepEqual(await store.listModifiers(p.profile_id), [m2]);
        assert.deepEqual(await store.listModifiers(other.profile_id), [m3]);
      }),
    );

    it(
      'appends history in order, filters by claim and since, and paginates without gaps',
      withStore(open, async (store) => {
        const p = profileRecord();
        const entries = [
          entry(p.profile_id, 'ppx:claim:a', 1),
          entry(p.profile_id, 'ppx:claim:b', 2),
          entry(p.profile_id, 'ppx:claim:a', 3, true),
          entry('ppx:profile:other', 'ppx:claim:a', 4),
        ];
        await store.appendClaimHistory(entries);
        const all = await store.listClaimHistory({ profile_id: p.profile_id, limit: 10 });
        assert.deepEqual(
          all.entries.map(({ seq: _s, ...e }) => e),
          entries.slice(0, 3),
        );
        assert.equal(all.next_cursor, undefined);
        const forA = await store.listClaimHistory({
          profile_id: p.profile_id,
          claim_id: 'ppx:claim:a',
          limit: 10,
        });
        assert.deepEqual(
          forA.entries.map((e) => e.change),
          ['created', 'deleted'],
        );
        const since = await store.listClaimHistory({ profile_id: p.profile_id, since: at(2), limit: 10 });
        assert.equal(since.entries.length, 2);
        const first = await store.listClaimHistory({ profile_id: p.profile_id, limit: 2 });
        assert.equal(first.entries.length, 2);
        assert.ok(first.next_cursor);
        const second = await store.listClaimHistory({
          profile_id: p.profile_id,
          limit: 2,
          cursor: first.next_cursor,
        });
        assert.deepEqual([...first.entries, ...second.entries], all.entries);
        await assert.rejects(
          store.listClaimHistory({ profile_id: p.profile_id, limit: 2, cursor: 'bogus' }),
          RangeError,
        );
      }),
    );
  });
}
