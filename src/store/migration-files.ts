import { readdirSync } from 'node:fs';

// The numbered migration files of a store (`NNNN_name.sql`), for both implementations: each keeps
// its own folder, and they list it alike.

export interface Migration {
  readonly version: number;
  readonly file: string;
}

/** The `NNNN_name.sql` files of `dir`, in version order. */
export function migrationFiles(dir: URL): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const match = /^(\d{4})_[a-z0-9_]+\.sql$/.exec(file);
    if (match !== null) migrations.push({ version: Number(match[1]), file });
  }
  migrations.sort((a, b) => a.version - b.version);
  return migrations;
}
