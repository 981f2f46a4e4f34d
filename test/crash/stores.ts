import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Deps } from '../../src/operations/deps.ts';
import { openProvider } from '../../src/provider.ts';
import { dropSchemas, schemaName, urlInSchema, withClient } from '../support/postgres.ts';

// The database a crash run kills the server over: a SQLite file in a temp directory, or a
// PostgreSQL schema of its own (dropped at the end). Besides the flags `ppx serve` needs, it
// opens the provider on the same database for the checks.

export type StoreKind = 'sqlite' | 'postgres';

export interface CrashStore {
  readonly kind: StoreKind;
  /** The `ppx serve` flags that name the database. */
  readonly serveFlags: readonly string[];
  /** The provider on the same database, as the CLI opens it (for the checks; close its store). */
  open(baseUrl: string): Promise<Deps>;
  /** Bytes the database takes now (the file and its WAL; the schema's relations). */
  size(): Promise<number>;
  /** Bytes per table, its indexes included, largest first. */
  tables(): Promise<{ table: string; bytes: number }[]>;
  /** Removes the file or drops the schema. */
  remove(): Promise<void>;
}

function configFor(flags: { dbPath?: string; databaseUrl?: string }, baseUrl: string): Config {
  const config = loadConfig({ ...flags, baseUrl }, {});
  if (!config.ok) throw new Error(config.error.description);
  return config.value;
}

export function sqliteStore(): CrashStore {
  const dir = mkdtempSync(join(tmpdir(), 'ppx-crash-'));
  const db = join(dir, 'ppx.db');
  return {
    kind: 'sqlite',
    serveFlags: ['--db', db],
    open: (baseUrl) => openProvider(configFor({ dbPath: db }, baseUrl)),
    async size() {
      let bytes = 0;
      for (const f of [db, `${db}-wal`]) {
        try {
          bytes += statSync(f).size;
        } catch {
          // No WAL right now (checkpointed and truncated, or not made yet).
        }
      }
      return bytes;
    },
    async tables() {
      const file = new DatabaseSync(db, { readOnly: true });
      try {
        const rows = file
          .prepare(
            `SELECT coalesce(s.tbl_name, d.name) AS table_name, sum(d.pgsize) AS bytes
               FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name
              GROUP BY table_name ORDER BY bytes DESC`,
          )
          .all() as { table_name: string; bytes: number }[];
        return rows.map((r) => ({ table: r.table_name, bytes: Number(r.bytes) }));
      } finally {
        file.close();
      }
    },
    async remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresStore(prefix = 'ppx_crash'): CrashStore {
  const made: string[] = [];
  const schema = schemaName(prefix, made);
  const url = urlInSchema(schema);
  const onServer = <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => withClient(url, work);
  return {
    kind: 'postgres',
    serveFlags: ['--database-url', url],
    open: (baseUrl) => openProvider(configFor({ databaseUrl: url }, baseUrl)),
    size: () =>
      onServer(async (client) => {
        const { rows } = await client.query(
          `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
          [schema],
        );
        return Number(rows[0]?.bytes ?? 0);
      }),
    tables: () =>
      onServer(async (client) => {
        const { rows } = await client.query(
          `SELECT c.relname AS table, pg_total_relation_size(c.oid)::bigint AS bytes
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY bytes DESC`,
          [schema],
        );
        return rows.map((r: { table: string; bytes: string }) => ({
          table: r.table,
          bytes: Number(r.bytes),
        }));
      }),
    remove: () => dropSchemas(made),
  };
}

export function crashStore(kind: StoreKind): CrashStore {
  return kind === 'sqlite' ? sqliteStore() : postgresStore();
}
