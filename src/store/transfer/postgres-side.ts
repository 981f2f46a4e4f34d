import pg from 'pg';
import { AUDIT_LOCK, lockKey, OUTBOX_LOCK, WRITE_LOCK } from '../postgres/locks.ts';
import { quoteIdent } from '../postgres/migrate.ts';
import { openPostgresStore } from '../postgres/postgres-store.ts';
import { pgTypes } from '../postgres/sql.ts';
import { keyList, type TransferSide, type Values } from './side.ts';
import type { TableSpec } from './tables.ts';

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 30_000;

/**
 * The PostgreSQL database at `url` (its schema `schema`, or the connection's current one) as one
 * end of a move. Opening it as a store first applies this version's migrations.
 */
export async function postgresSide(url: string, label: string, schema?: string): Promise<TransferSide> {
  await (await openPostgresStore(url, schema === undefined ? {} : { schema })).close();
  const client = new pg.Client({
    connectionString: url,
    types: pgTypes,
    ...(schema === undefined ? {} : { options: `-c search_path=${quoteIdent(schema)}` }),
  });
  await client.connect();
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const run = async (sql: string, values: readonly unknown[] = []) =>
    (await client.query({ text: numbered(sql), values: values as unknown[], rowMode: 'array' }))
      .rows as Values[];
  const sequenceOf = async (table: string, column: string) =>
    String((await run('SELECT pg_get_serial_sequence(?, ?)', [table, column]))[0]?.[0] ?? '');
  const schemaName = String((await run('SELECT current_schema()'))[0]?.[0]);

  return {
    label,
    async begin(role) {
      if (role === 'source') {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      } else {
        await client.query('BEGIN');
        // The store's own locks (postgres/locks.ts): no instance writes, appends to the outbox or
        // to the audit log while the move runs.
        const key = lockKey(schemaName);
        await client.query(
          'SELECT pg_advisory_xact_lock($1, $4), pg_advisory_xact_lock($2, $4), pg_advisory_xact_lock($3, $4)',
          [WRITE_LOCK, OUTBOX_LOCK, AUDIT_LOCK, key],
        );
      }
      // A whole store may take longer than any one statement of the provider's.
      await client.query('SET LOCAL statement_timeout = 0');
    },
    async count(table) {
      return Number((await run(`SELECT count(*) FROM ${table.name}`))[0]?.[0] ?? 0);
    },
    async page(table, after, limit) {
      const key = keyList(table, (c) => c);
      const where = after === undefined ? '' : `WHERE ${key.cols} > ${key.marks}`;
      return run(
        `SELECT ${table.columns.join(', ')} FROM ${table.name} ${where} ORDER BY ${table.key.join(', ')} LIMIT ?`,
        [...(after ?? []), limit],
      );
    },
    async insert(table, rows) {
      const width = table.columns.length;
      const per = Math.max(1, Math.floor(MAX_PARAMETERS / width));
      const one = `(${table.columns.map(() => '?').join(', ')})`;
      for (let i = 0; i < rows.length; i += per) {
        const chunk = rows.slice(i, i + per);
        // OVERRIDING SYSTEM VALUE: the seqs of identity columns are carried, not made anew.
        await run(
          `INSERT INTO ${table.name} (${table.columns.join(', ')}) OVERRIDING SYSTEM VALUE VALUES ${chunk.map(() => one).join(', ')}`,
          chunk.flat(),
        );
      }
    },
    async readSingleton(spec) {
      return (
        (await run(`SELECT ${spec.columns.join(', ')} FROM ${spec.name} WHERE ${spec.one} = 1`))[0] ?? []
      );
    },
    async writeSingleton(spec, values) {
      await run(
        `UPDATE ${spec.name} SET ${spec.columns.map((c) => `${c} = ?`).join(', ')} WHERE ${spec.one} = 1`,
        [...values],
      );
    },
    async highWater(table: TableSpec, column) {
      const held = Number((await run(`SELECT coalesce(max(${column}), 0) FROM ${table.name}`))[0]?.[0] ?? 0);
      if (table.name === 'changes') {
        return Math.max(held, Number((await run('SELECT seq FROM change_seq WHERE one = 1'))[0]?.[0] ?? 0));
      }
      const given = (
        await run('SELECT pg_sequence_last_value(?::regclass)', [await sequenceOf(table.name, column)])
      )[0]?.[0];
      return Math.max(held, Number(given ?? 0));
    },
    async setHighWater(table, column, n) {
      if (table.name === 'changes') {
        await run('UPDATE change_seq SET seq = ? WHERE one = 1', [n]);
      } else if (n > 0) {
        await run('SELECT setval(?::regclass, ?)', [await sequenceOf(table.name, column), n]);
      }
    },
    async suspendTriggers() {
      // USER: the schema's own triggers; the foreign-key constraint triggers stay on.
      for (const name of await triggerTables())
        await client.query(`ALTER TABLE ${name} DISABLE TRIGGER USER`);
    },
    async resumeTriggers() {
      for (const name of await triggerTables()) await client.query(`ALTER TABLE ${name} ENABLE TRIGGER USER`);
    },
    async commit() {
      await client.query('COMMIT');
    },
    async rollback() {
      await client.query('ROLLBACK').catch(() => undefined);
    },
    async close() {
      await client.end();
    },
  };

  async function triggerTables(): Promise<string[]> {
    const rows = await run(
      `SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND NOT t.tgisinternal ORDER BY 1`,
    );
    return rows.map((r) => quoteIdent(String(r[0])));
  }
}
