import { readdirSync, readFileSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

interface Migration {
  readonly version: number;
  readonly file: string;
}

/** `NNNN_name.sql` files in migrations/, in version order. */
export function listMigrations(): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(MIGRATIONS_DIR)) {
    const match = /^(\d{4})_[a-z0-9_]+\.sql$/.exec(file);
    if (match !== null) migrations.push({ version: Number(match[1]), file });
  }
  migrations.sort((a, b) => a.version - b.version);
  return migrations;
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
