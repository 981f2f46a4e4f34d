import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store, StoreTx } from '../../src/store/store.ts';
import { auditEvent, gate, grant, minimalClaim, profileRecord, withStore } from '../support/store-records.ts';

const COUNTER_ID = 'ppx:claim:counter';

async function readCounter(reader: Pick<StoreTx, 'listClaims'>, profileId: string): Promise<number> {
  const claim = (await reader.listClaims(profileId)).find((c) => c.claim_id === COUNTER_ID);
  return typeof claim?.value === 'number' ? claim.value : 0;
}

async function writeCounter(tx: StoreTx, profileId: string, value: number): Promise<void> {
  await tx.putClaims(profileId, [
    minimalClaim({ claim_id: COUNTER_ID, key: 'counter', value, value_type: 'int' }),
  ]);
}

export function transactionContract(open: () => Promise<Store>): void {
  describe('transactions', () => {
    it(
      'commits every write together and returns fn’s result; reads inside see the writes',
      withStore(open, async (store) => {
        const profile = profileRecord();
        const claim = minimalClaim();
        const g = grant({ subject_id: profile.subject_id, profile_id: profile.profile_id });
        const result = await store.transaction(async (tx) => {
          await tx.insertProfile(profile);
          await tx.putClaims(profile.profile_id, [claim]);
          await tx.insertGrant(g);
          assert.deepEqual(await tx.getProfile(profile.profile_id), profile);
          assert.deepEqual(await tx.listClaims(profile.profile_id), [claim]);
          return 'done';
        });
        assert.equal(result, 'done');
        assert.deepEqual(await store.getProfile(profile.profile_id), profile);
        assert.deepEqual(await store.listClaims(profile.profile_id), [claim]);
        assert.deepEqual(await store.getGrant(g.grant_id), g);
      }),
    );

    it(
      'transactions asked for together stay apart: one that throws is rolled back alone',
      withStore(open, async (store) => {
        // Started in one turn of the event loop (SQLite commits such a group together).
        const boom = new Error('the second one fails');
        const [first, second, third] = await Promise.allSettled([
          store.transaction(async (tx) => {
            await tx.putSetting('group-first', '1');
            return 'first';
          }),
          store.transaction(async (tx) => {
            await tx.putSetting('group-second', '2');
            throw boom;
          }),
          store.transaction(async (tx) => {
            assert.equal(await tx.getSetting('group-first'), '1');
            assert.equal(await tx.getSetting('group-second'), undefined);
            await tx.putSetting('group-third', '3');
            return 'third';
          }),
        ]);
        assert.deepEqual(first, { status: 'fulfilled', value: 'first' });
        assert.deepEqual(second, { status: 'rejected', reason: boom });
        assert.deepEqual(third, { status: 'fulfilled', value: 'third' });
        assert.equal(await store.getSetting('group-first'), '1');
        assert.equal(await store.getSetting('group-second'), undefined);
        assert.equal(await store.getSetting('group-third'), '3');
      }),
    );

    it(
      'rolls back every write when fn throws, and rethrows the same error',
      withStore(open, async (store) => {
        const profile = profileRecord();
        const g = grant();
        const event = auditEvent();
        const boom = new Error('boom');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.insertProfile(profile);
            await tx.putClaims(profile.profile_id, [minimalClaim()]);
            await tx.insertGrant(g);
            await tx.appendAudit([event]);
            await tx.putSettingIfAbsent('rolled_back', 'yes');
            throw boom;
          }),
          (error) => error === boom,
        );
        assert.equal(await store.getProfile(profile.profile_id), undefined);
        assert.deepEqual(await store.listClaims(profile.profile_id), []);
        assert.equal(await store.getGrant(g.grant_id), undefined);
        assert.deepEqual((await store.listAudit({ subject_id: event.subject_id, limit: 5 })).events, []);
        assert.equal(await store.getSetting('rolled_back'), undefined);
        assert.equal(await store.countProfiles(), 0);
      }),
    );

    it(
      'keeps a failed write atomic inside a transaction that catches the error and commits',
      withStore(open, async (store) => {
        const original = auditEvent();
        await store.appendAudit([original]);
        const fresh = auditEvent({ subject_id: original.subject_id });
        const profile = profileRecord();
        await store.transaction(async (tx) => {
          await assert.rejects(tx.appendAudit([fresh, original]));
          await tx.insertProfile(profile);
        });
        assert.deepEqual((await store.listAudit({ subject_id: original.subject_id, limit: 5 })).events, [
          original,
        ]);
        assert.deepEqual(await store.getProfile(profile.profile_id), profile);
      }),
    );

    it(
      'runs concurrent read-then-write transactions without interleaving',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        const increment = (between: () => Promise<void> = async () => undefined) =>
          store.transaction(async (tx) => {
            const value = await readCounter(tx, profile.profile_id);
            await between();
            await writeCounter(tx, profile.profile_id, value + 1);
            return value;
          });
        // Not a pause: the first has read and not yet written while the other three are issued, and
        // until the store has answered a read issued after them. A store that let them in before the
        // first commits would have them read the same value as the first, or as one another.
        const read = gate();
        const issued = gate();
        const first = increment(async () => {
          read.open();
          await issued.wait;
        });
        await read.wait;
        const others = [increment(), increment(), increment()];
        await store.getProfile(profile.profile_id);
        issued.open();
        const seen = await Promise.all([first, ...others]);
        assert.deepEqual(
          [...seen].sort((a, b) => a - b),
          [0, 1, 2, 3],
        );
        assert.equal(await readCounter(store, profile.profile_id), 4);
      }),
    );

    it(
      'orders a write issued during an open transaction after that transaction',
      withStore(open, async (store) => {
        const held = gate();
        const entered = gate();
        const tx = store.transaction(async (t) => {
          entered.open();
          await held.wait;
          return t.putSettingIfAbsent('owner', 'transaction');
        });
        await entered.wait;
        const outside = store.putSettingIfAbsent('owner', 'outside');
        let outsideSettled = false;
        void outside.then(() => {
          outsideSettled = true;
        });
        // Not a pause: the store answers a read issued after the write, and the write is still
        // waiting for the transaction.
        assert.equal(await store.getSetting('owner'), undefined);
        assert.equal(outsideSettled, false);
        held.open();
        assert.equal(await tx, 'transaction');
        assert.equal(await outside, 'transaction');
      }),
    );

    it(
      'refuses to use a tx after its transaction settled',
      withStore(open, async (store) => {
        let leaked: StoreTx | undefined;
        await store.transaction(async (tx) => {
          leaked = tx;
        });
        assert.ok(leaked);
        await assert.rejects(leaked.insertProfile(profileRecord()));
        assert.equal(await store.countProfiles(), 0);
      }),
    );

    it(
      'refuses every audit call in a transaction whose scope says unaudited, and runs the rest',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.transaction(async (tx) => tx.insertProfile(profile));
        const event = auditEvent({ subject_id: profile.subject_id });
        const scope = { subject: profile.subject_id, unaudited: true } as const;
        const refused = await store.transaction(async (tx) => {
          const calls = [
            tx.appendAudit([event]),
            tx.listAudit({ subject_id: profile.subject_id, limit: 5 }),
            tx.pruneAudit(event.at, 10),
            tx.pruneAuditKeySets(),
          ];
          const outcomes = await Promise.allSettled(calls);
          await tx.putClaims(profile.profile_id, [minimalClaim()]);
          return outcomes.map((o) => o.status);
        }, scope);
        assert.deepEqual(refused, ['rejected', 'rejected', 'rejected', 'rejected']);
        assert.equal((await store.listClaims(profile.profile_id)).length, 1);
        assert.deepEqual((await store.listAudit({ subject_id: profile.subject_id, limit: 5 })).events, []);
        // Without the promise the same calls run.
        await store.transaction(async (tx) => tx.appendAudit([event]), { subject: profile.subject_id });
        assert.deepEqual((await store.listAudit({ subject_id: profile.subject_id, limit: 5 })).events, [
          event,
        ]);
      }),
    );
  });
}
