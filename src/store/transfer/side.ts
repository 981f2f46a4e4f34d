import type { SingletonSpec, TableSpec } from './tables.ts';

/** One row as carried: the values of TableSpec.columns, in that order. */
export type Values = readonly unknown[];

/**
 * One end of a move (sqlite-side.ts, postgres-side.ts), below the Store interface: whole rows,
 * byte for byte, so that what arrives is what left, triggers and counters included. A side is
 * used inside one transaction: a snapshot to read from, or the writes of the whole move, which
 * commit together or not at all.
 */
export interface TransferSide {
  /** Where it is, for messages (no password). */
  readonly label: string;
  /** Starts the transaction: a consistent snapshot for a source, the write lock for a target. */
  begin(role: 'source' | 'target'): Promise<void>;
  count(table: TableSpec): Promise<number>;
  /** Up to `limit` rows in key order, after the row whose key values are `after`. */
  page(table: TableSpec, after: Values | undefined, limit: number): Promise<Values[]>;
  insert(table: TableSpec, rows: readonly Values[]): Promise<void>;
  readSingleton(spec: SingletonSpec): Promise<Values>;
  writeSingleton(spec: SingletonSpec, values: Values): Promise<void>;
  /** The highest number the table's numbering has given (0 when none): see tables.ts#NUMBERED. */
  highWater(table: TableSpec, column: string): Promise<number>;
  setHighWater(table: TableSpec, column: string, n: number): Promise<void>;
  /**
   * Stops the schema's own triggers while rows are copied: the rows already carry the versions,
   * claim shapes and times those triggers would compute, and the append-only guards do not apply
   * to a copy. Foreign keys stay checked.
   */
  suspendTriggers(): Promise<void>;
  resumeTriggers(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}

/** The SQL list of a spec's key columns, and the `(?, ?)` to compare them with. */
export function keyList(
  table: TableSpec,
  spell: (column: string) => string,
): { cols: string; marks: string } {
  const cols = table.key.map(spell).join(', ');
  const marks = table.key.map(() => '?').join(', ');
  return table.key.length === 1 ? { cols, marks } : { cols: `(${cols})`, marks: `(${marks})` };
}

/** The key values of a carried row. */
export function keyOf(table: TableSpec, row: Values): unknown[] {
  return table.key.map((k) => row[table.columns.indexOf(k)]);
}
