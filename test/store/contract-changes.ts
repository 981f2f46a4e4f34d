import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeDraft, ChangeEvent } from '../../src/model/change-event.ts';
import type { Store } from '../../src/store/store.ts';
import { gate, subjectId, withStore } from '../support/store-records.ts';

// Store contract for the change-event outbox (migration 0009, docs/store.md "Change events").

export function changeDraft(overrides: Partial<ChangeDraft> = {}): ChangeDraft {
  return {
    subject_id: 'subj_changes_contract',
    kind: 'claims_written',
    ids: { claim_ids: ['ppx:claim:a'], namespaces: ['core'] },
    grants: ['ppx:grant:one'],
    at: '2026-06-01T12:00:00.000Z',
    ...overrides,
  };
}

/** Takes `n` events from a subscription's iterator. */
async function take(iterator: AsyncIterator<ChangeEvent>, n: number): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    assert.equal(next.done, false);
    out.push(next.value);
  }
  return out;
}

export function changesContract(open: () => Promise<Store>): void {
  describe('change events (outbox)', () => {
    it(
      'appendChange returns the event with its seq and the time it was given; listChanges gives it back',
      withStore(open, async (store) => {
        assert.equal(await store.latestChangeSeq(), 0);
        assert.deepEqual(await store.listChanges({ after: 0, limit: 10 }), []);
        const draft = changeDraft();
        const event = await store.appendChange(draft);
        assert.deepEqual({ ...event, seq: 0 }, { ...draft, seq: 0 });
        assert.ok(event.seq > 0);
        assert.deepEqual(await store.listChanges({ after: 0, limit: 10 }), [event]);
        assert.equal(await store.latestChangeSeq(), event.seq);
      }),
    );

    it(
      'seqs strictly increase by one in commit order, inside transactions and outside',
      withStore(open, async (store) => {
        const a = await store.appendChange(changeDraft());
        const [b, c] = await store.transaction(async (tx) => [
          await tx.appendChange(changeDraft({ kind: 'grant_created' })),
          await tx.appendChange(changeDraft({ kind: 'consent_decided' })),
        ]);
        const d = await store.appendChange(changeDraft());
        assert.deepEqual(
          [a, b, c, d].map((e) => e?.seq),
          [a.seq, a.seq + 1, a.seq + 2, a.seq + 3],
        );
        const listed = await store.listChanges({ after: 0, limit: 10 });
        assert.deepEqual(
          listed.map((e) => e.kind),
          ['claims_written', 'grant_created', 'consent_decided', 'claims_written'],
        );
      }),
    );

    it(
      'a rolled-back transaction leaves no row and consumes no seq',
      withStore(open, async (store) => {
        const before = await store.appendChange(changeDraft());
        const boom = new Error('boom');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.appendChange(changeDraft({ kind: 'grant_revoked' }));
            await tx.appendChange(changeDraft({ kind: 'refresh_family_ended' }));
            throw boom;
          }),
          (e) => e === boom,
        );
        assert.deepEqual(await store.listChanges({ after: before.seq, limit: 10 }), []);
        assert.equal(await store.latestChangeSeq(), before.seq);
        const next = await store.appendChange(changeDraft());
        assert.equal(next.seq, before.seq + 1);
      }),
    );

    it(
      'no reader outside a transaction sees its events before it commits',
      withStore(open, async (store) => {
        const appended = gate();
        const release = gate();
        const tx = store.transaction(async (t) => {
          await t.appendChange(changeDraft());
          appended.open();
          await release.wait;
          throw new Error('rolled back');
        });
        await appended.wait;
        const seen = store.listChanges({ after: 0, limit: 10 });
        const latest = store.latestChangeSeq();
        // Give the reads every chance to run while the transaction is open.
        await new Promise((resolve) => setImmediate(resolve));
        release.open();
        await assert.rejects(tx, /rolled back/);
        assert.deepEqual(await seen, []);
        assert.equal(await latest, 0);
      }),
    );

    it(
      'listChanges filters by seq and subject, keeps the order, and stops at the limit',
      withStore(open, async (store) => {
        const alice = subjectId();
        const bob = subjectId();
        const events: ChangeEvent[] = [];
        for (const subject of [alice, bob, alice, bob, alice]) {
          events.push(await store.appendChange(changeDraft({ subject_id: subject })));
        }
        const [e0, e1, e2, e3, e4] = events;
        assert.deepEqual(await store.listChanges({ after: 0, subjectId: alice, limit: 10 }), [e0, e2, e4]);
        assert.deepEqual(await store.listChanges({ after: e0!.seq, subjectId: alice, limit: 10 }), [e2, e4]);
        assert.deepEqual(await store.listChanges({ after: e0!.seq, limit: 2 }), [e1, e2]);
        assert.deepEqual(await store.listChanges({ after: e2!.seq, subjectId: bob, limit: 1 }), [e3]);
        assert.deepEqual(await store.listChanges({ after: e4!.seq + 100, limit: 10 }), []);
        assert.deepEqual(await store.listChanges({ after: 0, subjectId: subjectId(), limit: 10 }), []);
      }),
    );

    it(
      'markGrantExpiryAnnounced is true only the first time for a grant, and a rollback undoes it',
      withStore(open, async (store) => {
        assert.equal(await store.markGrantExpiryAnnounced('ppx:grant:x'), true);
        assert.equal(await store.markGrantExpiryAnnounced('ppx:grant:x'), false);
        assert.equal(
          await store.transaction((tx) => tx.markGrantExpiryAnnounced('ppx:grant:x')),
          false,
          'inside a transaction too',
        );
        await assert.rejects(
          store.transaction(async (tx) => {
            assert.equal(await tx.markGrantExpiryAnnounced('ppx:grant:y'), true);
            throw new Error('rolled back');
          }),
        );
        assert.equal(await store.markGrantExpiryAnnounced('ppx:grant:y'), true);
      }),
    );

    it(
      'the feed gets a transaction’s events after its commit, an autocommit append’s after its own, and none of a rollback',
      withStore(open, async (store) => {
        const subscription = store.changes.subscribe({});
        const events = subscription[Symbol.asyncIterator]();
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.appendChange(changeDraft({ kind: 'grant_revoked' }));
            throw new Error('rolled back');
          }),
        );
        const committed = await store.transaction(async (tx) => [
          await tx.appendChange(changeDraft({ kind: 'grant_created' })),
          await tx.appendChange(changeDraft({ kind: 'consent_decided' })),
        ]);
        const alone = await store.appendChange(changeDraft({ kind: 'sensitive_keys_changed' }));
        assert.deepEqual(await take(events, 3), [...committed, alone]);
        subscription.close();
        assert.equal((await events.next()).done, true);
      }),
    );
  });
}
