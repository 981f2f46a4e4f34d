import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { type Migration, migrationFiles } from '../migration-files.ts';
import { MIGRATION_LOCK } from './locks.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** `NNNN_name.sql` files in migrations/, in version order. */
export function listPostgresMigrations(): Migration[] {
  return migrationFiles(MIGRATIONS_DIR);
}

/**
 * Creates `schema` when it is missing and applies every migration not yet recorded in its
 * schema_migrations, all in one transaction (PostgreSQL's DDL is transactional) under a
 * transaction-level advisory lock keyed by the schema: two instances starting together apply
 * each migration once, the second finding it recorded when the first commits.
 */
export async function migratePostgres(client: pg.ClientBase, schema: string): Promise<void> {
  await client.query('BEGIN');
  try {
    // A migration over a large table may run longer than the pool's statement timeout.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, applied_at text NOT NULL)',
    );
    const applied = new Set(
      (await client.query('SELECT version FROM schema_migrations')).rows.map((row) => Number(row.version)),
    );
    for (const { version, file } of listPostgresMigrations()) {
      if (applied.has(version)) continue;
      await client.query(readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8'));
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        version,
        new Date().toISOString(),
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** An SQL identifier, quoted. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
