import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { dropSchemas, postgresUnreachable, schemaName, TEST_DATABASE_URL } from '../support/postgres.ts';
import { skipWhen } from '../support/skip.ts';
import { auditEvent, gate, grant, profileRecord, subjectId } from './fixtures.ts';

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
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    for (;;) {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      );
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await admin.end();
  }
}

/** Ends a backend and waits until it is gone. */
async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1, 5000)', [pid]);
  } finally {
    await admin.end();
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('postgres store: who waits for whom, across instances', {
  ...skipWhen(reason),
  concurrency: 1,
}, () => {
  it("a subject's transaction never waits for another subject's; one of the same subject waits its turn", () =>
    twoInstances(async (a, b) => {
      const [alice, bob] = [subjectId(), subjectId()];
      const held = gate();
      const order: string[] = [];
      const first = a.transaction(
        async (tx) => {
          await tx.insertProfile(profileRecord({ subject_id: alice }));
          await held.wait;
          order.push('alice 1 done');
        },
        { subject: alice },
      );
      // Bob's write, on the other instance, commits while Alice's transaction is open.
      await b.transaction((tx) => tx.insertProfile(profileRecord({ subject_id: bob })), { subject: bob });
      assert.ok(await b.getProfileBySubject(bob));
      // Alice's second transaction waits for her first (seen waiting on her lock), then runs.
      const second = b.transaction(
        async (tx) => {
          order.push('alice 2 starts');
          return tx.getProfileBySubject(alice);
        },
        { subject: alice },
      );
      await someoneWaits();
      held.open();
      await first;
      const seen = await second;
      assert.deepEqual(order, ['alice 1 done', 'alice 2 starts']);
      assert.equal(seen?.subject_id, alice, 'the second saw what the first committed');
    }));

  it('reads and audit appends wait for no write, not even an unscoped transaction holding the store', () =>
    twoInstances(async (a, b) => {
      const subject = subjectId();
      await a.insertProfile(profileRecord({ subject_id: subject }));
      const held = gate();
      const everything = a.transaction(async (tx) => {
        await tx.putSetting('held', 'yes');
        await held.wait;
      });
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
      const settings = a.transaction(
        async (tx) => {
          await tx.putSetting('x', '1');
          await held.wait;
        },
        { area: 'settings' },
      );
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
      await terminate(b.listenerPid()!);
      assert.equal((await b.getGrant(g.grant_id))?.status, 'revoked');

      // Ended before the next change: b notices, reads the database meanwhile, and misses nothing.
      const h = grant();
      await a.insertGrant(h);
      assert.equal((await b.getGrant(h.grant_id))?.status, 'active');
      await until(() => b.listenerPid() !== undefined);
      await terminate(b.listenerPid()!);
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

  it('reports how long its transactions waited for locks', () =>
    twoInstances(async (a) => {
      const subject = subjectId();
      await a.transaction((tx) => tx.insertProfile(profileRecord({ subject_id: subject })), { subject });
      const waits = a.lockWaits();
      assert.ok(waits.locks >= 1);
      assert.ok(waits.waitedMs >= 0);
    }));
});
