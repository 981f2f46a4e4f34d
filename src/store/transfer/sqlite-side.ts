import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { openSqliteStore } from '../sqlite/sqlite-store.ts';
import { keyList, type TransferSide, type Values } from './side.ts';
import type { TableSpec } from './tables.ts';

/**
 * The SQLite file at `path` as one end of a move. Opening it as a store first brings its schema to
 * this version's (migrations), so both ends have the same columns.
 */
export async function sqliteSide(path: string): Promise<TransferSide> {
  await (await openSqliteStore(path)).close();
  const db = new DatabaseSync(path);
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  const spell = (table: TableSpec) => (column: string) => table.sqlite?.[column] ?? column;
  const prepared = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  const statement = (sql: string) => {
    let s = prepared.get(sql);
    if (s === undefined) {
      s = db.prepare(sql);
      prepared.set(sql, s);
    }
    return s;
  };
  let triggers: { name: string; sql: string }[] = [];

  return {
    label: path,
    async begin(role) {
      // A source's deferred transaction reads one snapshot (WAL) from its first read; a target's
      // takes the write lock at once, so no server writes into a half-moved store.
      db.exec(role === 'target' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    },
    async count(table) {
      return Number((statement(`SELECT count(*) AS n FROM ${table.name}`).get() as { n: number }).n);
    },
    async page(table, after, limit) {
      const cols = table.columns.map(spell(table)).join(', ');
      const key = keyList(table, spell(table));
      const where = after === undefined ? '' : `WHERE ${key.cols} > ${key.marks}`;
      const s = statement(
        `SELECT ${cols} FROM ${table.name} ${where} ORDER BY ${table.key.map(spell(table)).join(', ')} LIMIT ?`,
      );
      s.setReturnArrays(true);
      const args = [...((after ?? []) as SQLInputValue[]), limit];
      return s.all(...args) as unknown as Values[];
    },
    async insert(table, rows) {
      const cols = table.columns.map(spell(table));
      const s = statement(
        `INSERT INTO ${table.name} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      );
      for (const row of rows) s.run(...(row as SQLInputValue[]));
    },
    async readSingleton(spec) {
      const s = statement(`SELECT ${spec.columns.join(', ')} FROM ${spec.name} WHERE ${spec.one} = 1`);
      s.setReturnArrays(true);
      return (s.get() as unknown as Values | undefined) ?? [];
    },
    async writeSingleton(spec, values) {
      statement(
        `UPDATE ${spec.name} SET ${spec.columns.map((c) => `${c} = ?`).join(', ')} WHERE ${spec.one} = 1`,
      ).run(...(values as SQLInputValue[]));
    },
    async highWater(table, column) {
      const given = statement('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table.name) as
        | { seq: number }
        | undefined;
      const held = statement(`SELECT max(${spell(table)(column)}) AS n FROM ${table.name}`).get() as {
        n: number | null;
      };
      return Math.max(Number(given?.seq ?? 0), Number(held.n ?? 0));
    },
    async setHighWater(table, _column, n) {
      // Only AUTOINCREMENT tables have a row here; a rowid table numbers on from its largest row.
      const autoincrement = statement(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? AND sql LIKE '%AUTOINCREMENT%'",
      ).get(table.name);
      if (autoincrement === undefined) return;
      statement('DELETE FROM sqlite_sequence WHERE name = ?').run(table.name);
      statement('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table.name, n);
    },
    async suspendTriggers() {
      // SQLite cannot switch a trigger off: it is dropped and made again from its own text, inside
      // the move's transaction (SQLite's DDL is transactional too).
      triggers = statement(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name",
      ).all() as {
        name: string;
        sql: string;
      }[];
      for (const t of triggers) db.exec(`DROP TRIGGER "${t.name.replaceAll('"', '""')}"`);
    },
    async resumeTriggers() {
      for (const t of triggers) db.exec(t.sql);
      triggers = [];
    },
    async commit() {
      db.exec('COMMIT');
    },
    async rollback() {
      if (db.isTransaction) db.exec('ROLLBACK');
    },
    async close() {
      prepared.clear();
      db.close();
    },
  };
}
