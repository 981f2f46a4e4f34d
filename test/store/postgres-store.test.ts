import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { openConfiguredStore } from '../../src/provider.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { Store } from '../../src/store/store.ts';
import { skipWhen } from '../support/skip.ts';
import { runStoreContract } from './contract.ts';
import { profileRecord } from './fixtures.ts';

// The store contract against a real PostgreSQL server (PPX_TEST_DATABASE_URL, by default the local
// one). Every store opened here lives in a schema of its own, dropped when the file is done, so
// tests are isolated and may run in parallel with other runs on the same database.
const DATABASE_URL = process.env['PPX_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why the server cannot be used, or false when it answers. */
async function unreachable(): Promise<string | false> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return false;
  } catch (error) {
    return `PostgreSQL not reachable at ${DATABASE_URL} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const reason = await unreachable();
const schemas: string[] = [];

function freshSchema(): string {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  return schema;
}

const open = (schema: string) => (): Promise<Store> =>
  openPostgresStore(DATABASE_URL, { schema, poolSize: 4 });

after(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
});

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
