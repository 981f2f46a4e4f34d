import { existsSync, readFileSync } from 'node:fs';
import type { TestDatabase } from '../../support/test-database.ts';

// What a database holds, read around the store, for the search of secrets at rest
// (secrets.test.ts): every cell of every table as text, and the raw bytes the rows are kept in,
// freed and superseded rows included. On SQLite the file and its WAL; on PostgreSQL the pages of
// the schema's tables, their TOAST tables and indexes, dead row versions included, read with
// pageinspect's get_raw_page. Not a *.test.ts file.

/** One cell as text: blobs as UTF-8 and hex, JSON values as JSON. */
function cellText(value: unknown): string {
  if (value instanceof Uint8Array) {
    const bytes = Buffer.from(value);
    return `${bytes.toString('utf8')} ${bytes.toString('hex')}`;
  }
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) return JSON.stringify(value);
  return String(value);
}

/** Every non-null value of every column of every table, with `table.column`, and the tables read. */
export async function everyCell(
  database: TestDatabase,
): Promise<{ tables: number; cells: { where: string; text: string }[] }> {
  const tables = await database.rows(
    database.kind === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table'"
      : `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  const out: { where: string; text: string }[] = [];
  for (const { name } of tables) {
    for (const row of await database.rows(`SELECT * FROM "${String(name)}"`)) {
      for (const [column, value] of Object.entries(row)) {
        if (value === null || value === undefined) continue;
        out.push({ where: `${String(name)}.${column}`, text: cellText(value) });
      }
    }
  }
  return { tables: tables.length, cells: out };
}

/** The raw bytes the database keeps its rows in, by where they are. */
export async function rawBytes(database: TestDatabase): Promise<{ where: string; bytes: Buffer }[]> {
  if (database.kind === 'sqlite') {
    const file = database.config.dbPath;
    return [file, `${file}-wal`, `${file}-shm`]
      .filter(existsSync)
      .map((f) => ({ where: f, bytes: readFileSync(f) }));
  }
  // pageinspect goes in the test's own schema, so it goes when the schema is dropped (unless a
  // run that never dropped its schema left it in another: an extension is once per database).
  const [here] = await database.rows('SELECT current_schema() AS s');
  await database.write([[`CREATE EXTENSION IF NOT EXISTS pageinspect SCHEMA "${String(here?.['s'])}"`]]);
  const [ext] = await database.rows(
    "SELECT extnamespace::regnamespace::text AS s FROM pg_extension WHERE extname = 'pageinspect'",
  );
  const pages = await database.rows(
    `WITH rel AS (
       SELECT c.oid, c.relkind FROM pg_class c
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'i', 't')
       UNION
       SELECT t.reltoastrelid, 't' FROM pg_class t
        WHERE t.relnamespace = current_schema()::regnamespace AND t.reltoastrelid <> 0
     )
     SELECT rel.oid::regclass::text AS rel, b AS blk, ${String(ext?.['s'])}.get_raw_page(rel.oid::regclass::text, b::bigint) AS page
       FROM rel, generate_series(0, pg_relation_size(rel.oid) / current_setting('block_size')::int - 1) b`,
  );
  return pages.map((p) => ({
    where: `${String(p['rel'])} page ${String(p['blk'])}`,
    bytes: p['page'] as Buffer,
  }));
}
