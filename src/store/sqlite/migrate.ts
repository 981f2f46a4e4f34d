import { readFileSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';

import { type Migration, migrationFiles } from '../migration-files.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** `NNNN_name.sql` files in migrations/, in version order. */
export function listMigrations(): Migration[] {
  return migrationFiles(MIGRATIONS_DIR);
}

/**
 * Applies every migration not yet recorded in schema_migrations, each in its own transaction.
 * The applied set is re-read inside that transaction (BEGIN IMMEDIATE takes the write lock), so
 * two processes starting on the same file at once do not both apply a migration.
 */
export function migrate(db: DatabaseSync): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)');
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
  for (const { version, file } of listMigrations()) {
    db.exec('BEGIN IMMEDIATE');
    try {
      if (isApplied.get(version) === undefined) {
        db.exec(readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8'));
        record.run(version, new Date().toISOString());
      }
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }
}
