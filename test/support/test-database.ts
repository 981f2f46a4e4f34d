import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Config, ConfigInput } from '../../src/config.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { dropSchemas, schemaName, TEST_DATABASE_URL, urlInSchema, withClient } from './postgres.ts';

// The database an end-to-end test's provider keeps its store in: a SQLite file in a temp folder
// (the default), or, with PPX_TEST_STORE=postgres, a PostgreSQL schema of its own on the test
// server (PPX_TEST_DATABASE_URL), dropped at the end. Tests reach it through the store; what only
// a process of its own can show (`ppx serve` killed, a CLI command) is named by `cliArgs`/`env`.

export type StoreKind = 'sqlite' | 'postgres';

function storeKindOf(value: string | undefined): StoreKind {
  if (value === undefined || value === '' || value === 'sqlite') return 'sqlite';
  if (value === 'postgres') return 'postgres';
  throw new Error(`PPX_TEST_STORE must be sqlite or postgres, not ${JSON.stringify(value)}`);
}

/** The store the end-to-end suite runs on: PPX_TEST_STORE=postgres, else SQLite. */
export const TEST_STORE: StoreKind = storeKindOf(process.env['PPX_TEST_STORE']);

export interface TestDatabase {
  readonly kind: StoreKind;
  /** A temp folder of the test's own (the SQLite file lives there), removed at drop. */
  readonly dir: string;
  /** What loadConfig takes to name it (`dbPath`, plus `databaseUrl` on PostgreSQL). */
  readonly config: Pick<ConfigInput, 'dbPath' | 'databaseUrl'> & Pick<Config, 'dbPath'>;
  /** The CLI flags that name it (`--db FILE` or `--database-url URL`). */
  readonly cliArgs: readonly string[];
  /** The environment that names it to a CLI command (`PPX_DB` or `PPX_DATABASE_URL`). */
  readonly env: Readonly<Record<string, string>>;
  /** Opens a store on it (another connection, as another process would). */
  open(): Promise<Store>;
  /** Rows of a read-only SQL query on it (`?` placeholders on both), for what no store method reads. */
  rows(sql: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs statements that write on it, in one transaction; `?` placeholders. Test set-up only. */
  write(statements: readonly (readonly [string, ...unknown[]])[]): Promise<void>;
  /** Removes the file or drops the schema. */
  drop(): Promise<void>;
}

/** A fresh, empty database of the kind under test. */
export function testDatabase(kind: StoreKind = TEST_STORE): TestDatabase {
  return kind === 'postgres' ? postgresDatabase() : sqliteDatabase();
}

function sqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'ppx-test-'));
  const file = join(dir, 'ppx.db');
  return {
    kind: 'sqlite',
    dir,
    config: { dbPath: file },
    cliArgs: ['--db', file],
    env: { PPX_DB: file },
    open: () => openSqliteStore(file),
    async rows(sql, ...params) {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        return db.prepare(sql).all(...(params as never[])) as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
    async write(statements) {
      const db = new DatabaseSync(file);
      try {
        db.exec('PRAGMA busy_timeout = 5000');
        db.exec('BEGIN IMMEDIATE');
        for (const [sql, ...params] of statements) db.prepare(sql).run(...(params as never[]));
        db.exec('COMMIT');
      } finally {
        db.close();
      }
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `?` placeholders as PostgreSQL's `$n`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * A PostgreSQL schema: a new one (dropped at drop), or `existing` (shared by several providers,
 * left for whoever made it).
 */
export function postgresDatabase(existing?: { readonly url: string; readonly schema: string }): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'ppx-test-'));
  const made: string[] = [];
  const schema = existing?.schema ?? schemaName('e2e', made);
  const base = existing?.url ?? TEST_DATABASE_URL;
  // The schema rides in the URL (libpq's options=-c search_path=…), so `ppx serve` and every CLI
  // command opened on it work there, as openConfiguredStore does with PPX_DATABASE_URL.
  const url = urlInSchema(schema, base);
  return {
    kind: 'postgres',
    dir,
    config: { dbPath: join(dir, 'unused.db'), databaseUrl: url },
    cliArgs: ['--database-url', url],
    env: { PPX_DATABASE_URL: url },
    open: () => openPostgresStore(base, { schema, poolSize: 4 }),
    rows: (sql, ...params) =>
      withClient(url, async (client) => (await client.query(numbered(sql), params)).rows),
    write: (statements) =>
      withClient(url, async (client) => {
        await client.query('BEGIN');
        try {
          for (const [sql, ...params] of statements) await client.query(numbered(sql), params);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }),
    async drop() {
      await dropSchemas(made, base);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
