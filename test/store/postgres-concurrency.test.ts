import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import {
  dropSchemas,
  postgresUnreachable,
  schemaName,
  TEST_DATABASE_URL,
  terminateBackend,
  until,
  withClient,
} from '../support/postgres.ts';
import { skipWhen } from '../support/skip.ts';
import {
  at,
  auditEvent,
  gate,
  grant,
  profileRecord,
  refreshChain,
  refreshToken,
  subjectId,
  tokenFamily,
} from '../support/store-records.ts';

// The PostgreSQL store's concurrency rule (issue 23, item 2; docs/store.md, "Concurrency,
// operation by operation") and its caches (item 3), with two instances on one schema. Waiting is
// shown, never timed: a transaction that must wait is seen waiting in pg_locks, and one that must
// not wait finishes while the other is held open by a gate.

const reason = await postgresUnreachable();
const schemas: string[] = [];
const open = (schema: string): Promise<PostgresStore> =>
  openPostgresStore(TEST_DATABASE_URL, { schema, poolSize: 4 });

after(() => dropSchemas(schemas));

/** Two instances on one fresh schema, closed after `body`. */
async function twoInstances(body: (a: PostgresStore, b: PostgresStore) => Promise<void>): Promise<void> {
  const schema = schemaName('c', schemas);
  const a = await open(schema);
  const b = await open(schema);
  try {
    await body(a, b);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

/** Resolves once some session waits for an advisory lock (a transaction queued on a held one). */
async function someoneWaits(): Promise<void> {
  await withClient(TEST_DATABASE_URL, async (admin) => {
    for (;;) {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      );
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
}

describe('postgres store: who waits for whom, across instances', {
  ...skipWhen(reason),
  concurrency: 1,
}, () => {
  it("a subject's transaction never waits for another subject's; one of the same subject waits its turn", () =>
    twoInstances(async (a, b) => {
      const [alice, bob] = [subjectId(), subjectId()];
      const held = gate();
      const inside = gate();
      const order: string[] = [];
      const first = a.transaction(
        async (tx) => {
          await tx.insertProfile(profileRecord({ subject_id: alice }));
          inside.open();
          await held.wait;
          order.push('alice 1 done');
        },
        { subject: alice },
      );
      await inside.wait; // Alice's transaction holds her lock from here
      // Bob's write, on the other instance, commits while Alice's transaction is open.
      await b.transaction((tx) => tx.insertProfile(profileRecord({ subject_id: bob })), { subject: bob });
      assert.ok(await b.getProfileBySubject(bob));
      // Alice's second transaction waits for her first (seen waiting on her lock, which its first
      // call takes), then reads.
      const second = b.transaction(
        async (tx) => {
          const read = await tx.getProfileBySubject(alice);
          order.push('alice 2 read');
          return read;
        },
        { subject: alice },
      );
      await someoneWaits();
      held.open();
      await first;
      const seen = await second;
      assert.deepEqual(order, ['alice 1 done', 'alice 2 read']);
      assert.equal(seen?.subject_id, alice, 'the second saw what the first committed');
    }));

  it("a rotation waits only for its own family's: not for its subject's transaction, and one of the same family waits its turn", () =>
    twoInstances(async (a, b) => {
      const alice = subjectId();
      const family = tokenFamily({ subject_id: alice });
      const token = refreshToken({ family_id: family.family_id });
      await a.insertTokenFamily(family);
      await a.insertRefreshToken(token);
      const held = gate();
      const inside = gate();
      const subjects = a.transaction(
        async (tx) => {
          await tx.insertProfile(profileRecord({ subject_id: alice }));
          inside.open();
          await held.wait;
        },
        { subject: alice },
      );
      await inside.wait; // Alice's transaction holds her lock from here
      const chain = refreshChain({ family_id: family.family_id });
      // On the other instance, the family's rotation commits while her transaction is open.
      const rotated = await b.transaction((tx) => tx.rotateRefreshToken(token.token_hash, chain), {
        family: family.family_id,
      });
      assert.equal(rotated, true);
      // A second rotation of that family waits behind one that holds the family's lock.
      const familyHeld = gate();
      const familyInside = gate();
      const first = a.transaction(
        async (tx) => {
          await tx.advanceRefreshChain(family.family_id, 0, { issued_at: at(1), expires_at: at(100) });
          familyInside.open();
          await familyHeld.wait;
        },
        { family: family.family_id },
      );
      await familyInside.wait;
      const order: string[] = [];
      const second = b.transaction(
        async (tx) => {
          const read = await tx.getRefreshChain(family.family_id);
          order.push('second read');
          return read;
        },
        { family: family.family_id },
      );
      await someoneWaits();
      order.push('first released');
      familyHeld.open();
      await first;
      assert.equal((await second)?.generation, 1, 'the second saw what the first committed');
      assert.deepEqual(order, ['first released', 'second read']);
      held.open();
      await subjects;
    }));

  it('reads and audit appends wait for no write, not even an unscoped transaction holding the store', () =>
    twoInstances(async (a, b) => {
      const subject = subjectId();
      await a.insertProfile(profileRecord({ subject_id: subject }));
      const held = gate();
      const inside = gate();
      const everything = a.transaction(async (tx) => {
        await tx.putSetting('held', 'yes');
        inside.open();
        await held.wait;
      });
      await inside.wait; // the store's write lock is held, alone, from here
      const event = auditEvent({ subject_id: subject });
      await b.appendAudit([event]);
      assert.deepEqual((await b.listAudit({ subject_id: subject, limit: 5 })).events, [event]);
      assert.equal((await b.getProfileBySubject(subject))?.subject_id, subject);
      assert.equal(await b.getSetting('held'), undefined, 'an open transaction is not seen');
      held.open();
      await everything;
      assert.equal(await b.getSetting('held'), 'yes');
    }));

  it('a client, a setting and a subject are three scopes: each waits only for its own', () =>
    twoInstances(async (a, b) => {
      const held = gate();
      const inside = gate();
      const settings = a.transaction(
        async (tx) => {
          await tx.putSetting('x', '1');
          inside.open();
          await held.wait;
        },
        { area: 'settings' },
      );
      await inside.wait; // the settings' lock is held from here
      const subject = subjectId();
      await b.transaction((tx) => tx.insertProfile(profileRecord({ subject_id: subject })), { subject });
      await b.transaction(async () => undefined, { area: 'clients' });
      const next = b.transaction((tx) => tx.putSetting('x', '2'), { area: 'settings' });
      await someoneWaits();
      held.open();
      await Promise.all([settings, next]);
      assert.equal(await a.getSetting('x'), '2');
    }));

  it("a grant revoked through one instance is seen revoked by the other's next read, though it was kept", () =>
    twoInstances(async (a, b) => {
      const g = grant();
      await a.insertGrant(g);
      assert.equal((await b.getGrant(g.grant_id))?.status, 'active');
      assert.equal((await b.getGrant(g.grant_id))?.status, 'active', 'kept, and read again');
      await a.revokeGrant(g.grant_id, '2026-06-01T12:00:00.000Z');
      assert.equal((await b.getGrant(g.grant_id))?.status, 'revoked');
    }));

  it('its listening connection ended right after a revocation, an instance still sees it, and keeps nothing until it listens again', () =>
    twoInstances(async (a, b) => {
      const g = grant();
      await a.insertGrant(g);
      assert.equal((await b.getGrant(g.grant_id))?.status, 'active');
      // Revoked, then b's listening connection ended before its next read.
      await a.revokeGrant(g.grant_id, '2026-06-01T12:00:00.000Z');
      await terminateBackend(b.listenerPid()!);
      assert.equal((await b.getGrant(g.grant_id))?.status, 'revoked');

      // Ended before the next change: b notices, reads the database meanwhile, and misses nothing.
      const h = grant();
      await a.insertGrant(h);
      assert.equal((await b.getGrant(h.grant_id))?.status, 'active');
      await until(() => b.listenerPid() !== undefined);
      await terminateBackend(b.listenerPid()!);
      await until(() => b.listenerPid() === undefined);
      await a.revokeGrant(h.grant_id, '2026-06-01T12:00:00.000Z');
      assert.equal((await b.getGrant(h.grant_id))?.status, 'revoked');
      // Listening again (a second later): it keeps rows again, and drops them on the next notice.
      await until(() => b.listenerPid() !== undefined);
      const k = grant();
      await a.insertGrant(k);
      assert.equal((await b.getGrant(k.grant_id))?.status, 'active');
      await a.revokeGrant(k.grant_id, '2026-06-01T12:00:00.000Z');
      assert.equal((await b.getGrant(k.grant_id))?.status, 'revoked');
    }));

  it('reports how long its transactions waited for locks: none alone, some behind a held one', () =>
    twoInstances(async (a, b) => {
      const subject = subjectId();
      await b.transaction((tx) => tx.insertProfile(profileRecord({ subject_id: subject })), { subject });
      const alone = b.lockWaits();
      assert.equal(alone.locks, 1);
      const held = gate();
      const inside = gate();
      const first = a.transaction(
        async (tx) => {
          await tx.touchProfile(
            (await tx.getProfileBySubject(subject))!.profile_id,
            '2026-06-01T12:00:00.000Z',
          );
          inside.open();
          await held.wait;
        },
        { subject },
      );
      // Only once the first holds the subject's lock, so that the second must wait for it.
      await inside.wait;
      // Its locks go with its first call (a transaction that makes none takes none).
      const second = b.transaction((tx) => tx.getProfileBySubject(subject), { subject });
      // PostgreSQL shows b's transaction waiting for the lock: the wait it measures is then not empty.
      await someoneWaits();
      held.open();
      await Promise.all([first, second]);
      const after = b.lockWaits();
      assert.equal(after.locks, 2);
      assert.ok(after.waitedMs > alone.waitedMs, `waited ${after.waitedMs} ms in all`);
    }));

  it('keeps the outbox gap-free and in commit order when subjects write side by side on two instances', () =>
    twoInstances(async (a, b) => {
      const seen: number[] = [];
      const subscription = a.changes.subscribe({}, { fromSeq: await a.latestChangeSeq() });
      const subjects = Array.from({ length: 12 }, () => subjectId());
      const events = await Promise.all(
        subjects.map((subject, i) =>
          (i % 2 === 0 ? a : b).transaction(
            async (tx) => {
              await tx.insertProfile(profileRecord({ subject_id: subject }));
              return tx.appendChange({
                subject_id: subject,
                kind: 'profile_created',
                ids: {},
                grants: [],
                at: '2026-06-01T12:00:00.000Z',
              });
            },
            { subject },
          ),
        ),
      );
      const seqs = events.map((e) => e.seq).sort((x, y) => x - y);
      const first = seqs[0]!;
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => first + i),
        'consecutive',
      );
      // Instance a hears all twelve, its own and b's, once each and in seq order.
      for await (const event of subscription) {
        seen.push(event.seq);
        if (seen.length === seqs.length) break;
      }
      subscription.close();
      assert.deepEqual(seen, seqs);
      assert.deepEqual(
        (await b.listChanges({ after: first - 1, limit: 20 })).map((e) => e.seq),
        seqs,
      );
    }));
});
