import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { openConfiguredStore } from '../../src/provider.ts';
import { listPostgresMigrations } from '../../src/store/postgres/migrate.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { Store } from '../../src/store/store.ts';
import { dropSchemas, postgresUnreachable, schemaName, TEST_DATABASE_URL } from '../support/postgres.ts';
import { skipWhen } from '../support/skip.ts';
import { profileRecord } from '../support/store-records.ts';
import { runStoreContract } from './contract.ts';

// The store contract against a real PostgreSQL server (PPX_TEST_DATABASE_URL, by default the local
// one). Every store opened here lives in a schema of its own, dropped when the file is done, so
// tests are isolated and may run in parallel with other runs on the same database.
const DATABASE_URL = TEST_DATABASE_URL;
const reason = await postgresUnreachable();
const schemas: string[] = [];
const freshSchema = (): string => schemaName('t', schemas);

const open = (schema: string) => (): Promise<Store> =>
  openPostgresStore(DATABASE_URL, { schema, poolSize: 4 });

after(() => dropSchemas(schemas));

// Four at a time: each test has its own schema, and most of a test's time is the server applying
// the migration to it (subtests inherit the concurrency).
describe('postgres store', { ...skipWhen(reason), concurrency: 4 }, () => {
  runStoreContract('postgres', () => open(freshSchema())(), {
    sameDatabase: () => open(freshSchema()),
  });
});

describe('postgres store, chosen by the config', skipWhen(reason), () => {
  it('openConfiguredStore opens PostgreSQL at databaseUrl (in the schema its search_path names), not the file', async () => {
    const schema = freshSchema();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA "${schema}"`);
      const url = new URL(DATABASE_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const store = await openConfiguredStore({
        dbPath: '/nonexistent/never-created.db',
        databaseUrl: url.href,
      });
      const profile = profileRecord();
      try {
        await store.insertProfile(profile);
      } finally {
        await store.close();
      }
      const rows = await admin.query(`SELECT profile_id FROM "${schema}".profiles`);
      assert.deepEqual(rows.rows, [{ profile_id: profile.profile_id }]);
    } finally {
      await admin.end();
    }
  });
});

describe('postgres store, several instances on one database', { ...skipWhen(reason), concurrency: 2 }, () => {
  it('two instances opening a fresh schema at once apply the migrations once, and both work', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([open(schema)(), open(schema)()]);
    try {
      await a.insertProfile(profileRecord());
      await b.insertProfile(profileRecord());
      assert.equal(await a.countProfiles(), 2);
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      try {
        const rows = await admin.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
        assert.deepEqual(
          rows.rows.map((r) => Number(r.version)),
          listPostgresMigrations().map((m) => m.version),
        );
      } finally {
        await admin.end();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('serializes read-then-write transactions across instances: no increment is lost', async () => {
    const schema = freshSchema();
    const stores = await Promise.all([open(schema)(), open(schema)(), open(schema)()]);
    try {
      const increment = (store: Store) =>
        store.transaction(async (tx) => {
          const value = Number((await tx.getSetting('counter')) ?? '0');
          await new Promise((resolve) => setTimeout(resolve, 2));
          await tx.putSetting('counter', String(value + 1));
          return value;
        });
      const seen = await Promise.all(stores.flatMap((store) => [1, 2, 3, 4].map(() => increment(store))));
      assert.deepEqual(
        [...seen].sort((x, y) => x - y),
        Array.from({ length: 12 }, (_, i) => i),
      );
      assert.equal(await stores[0]!.getSetting('counter'), '12');
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('gives change seqs consecutive in commit order across instances, and exactly one winner of a transition', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([open(schema)(), open(schema)()]);
    try {
      const draft = {
        subject_id: 'subj_pg',
        kind: 'claims_written' as const,
        ids: { claim_ids: [], namespaces: ['core'] },
        grants: [],
        at: '2026-06-01T12:00:00.000Z',
      };
      const events = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).appendChange(draft)),
      );
      assert.deepEqual(
        events.map((e) => e.seq).sort((x, y) => x - y),
        Array.from({ length: 10 }, (_, i) => i + 1),
      );
      assert.equal(await b.latestChangeSeq(), 10);
      assert.deepEqual(
        (await a.listChanges({ after: 0, limit: 100 })).map((e) => e.seq),
        Array.from({ length: 10 }, (_, i) => i + 1),
      );
      const results = await Promise.all([
        a.markGrantExpiryAnnounced('ppx:grant:g'),
        b.markGrantExpiryAnnounced('ppx:grant:g'),
      ]);
      assert.deepEqual([...results].sort(), [false, true]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('delivers one instance’s change events to another’s live subscriptions (LISTEN/NOTIFY), in order, none missed', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([open(schema)(), open(schema)()]);
    const draft = {
      subject_id: 'subj_live',
      kind: 'claims_written' as const,
      ids: { claim_ids: [], namespaces: ['core'] },
      grants: [],
      at: '2026-06-01T12:00:00.000Z',
    };
    try {
      const seen: number[] = [];
      const subscription = b.changes.subscribe({ subjectId: 'subj_live' });
      const reading = (async () => {
        for await (const event of subscription) {
          seen.push(event.seq);
          if (seen.length === 12) break;
        }
      })();
      // Commits on A (some in one transaction, some alone), and one on B between them.
      await a.appendChange(draft);
      await a.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.appendChange(draft);
      });
      await b.appendChange(draft);
      for (let i = 0; i < 5; i++) await a.appendChange(draft);
      const until = Date.now() + 10_000;
      while (seen.length < 12 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      subscription.close();
      await reading;
      assert.deepEqual(
        seen,
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
