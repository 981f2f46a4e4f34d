import { createHash } from 'node:crypto';
import { keyOf, type TransferSide, type Values } from './side.ts';
import { NUMBERED, SINGLETONS, TABLES, type TableSpec } from './tables.ts';

/** Rows read (and written) at a time. */
const PAGE = 2_000;

export interface TableReport {
  readonly table: string;
  readonly rows: number;
  /** sha256 of every row in key order, the same on both ends when the move is whole. */
  readonly sourceDigest: string;
  readonly targetDigest: string;
}

export type TransferResult =
  | { readonly ok: true; readonly tables: readonly TableReport[]; readonly rows: number }
  | {
      readonly ok: false;
      readonly code: 'target_not_empty' | 'mismatch';
      readonly message: string;
      readonly tables?: readonly TableReport[];
    };

export type TransferProgress = (done: number, total: number) => void;

/**
 * Moves a whole store from `source` into the empty store `target`: every table's rows, the
 * one-row counters, and the high-water marks of the numbered tables. One transaction on each end:
 * the source is read from one snapshot, and the target's writes commit together, after every
 * table was read back from the target and found equal, row for row, to the source; otherwise
 * nothing is written.
 */
export async function transferStore(
  source: TransferSide,
  target: TransferSide,
  progress: TransferProgress = () => undefined,
): Promise<TransferResult> {
  await source.begin('source');
  await target.begin('target');
  try {
    const held: string[] = [];
    for (const table of TABLES) {
      const n = await target.count(table);
      if (n > 0) held.push(`${n} ${table.name}`);
    }
    if (held.length > 0) {
      await target.rollback();
      return {
        ok: false,
        code: 'target_not_empty',
        message:
          `${target.label} already holds a store (${held.slice(0, 4).join(', ')}${held.length > 4 ? ', …' : ''}); ` +
          'ppx migrate moves into an empty one: a new file, database or schema',
      };
    }
    const counts = new Map<string, number>();
    for (const table of TABLES) counts.set(table.name, await source.count(table));
    const total = [...counts.values()].reduce((a, b) => a + b, 0);

    await target.suspendTriggers();
    const sourceDigests = new Map<string, string>();
    let done = 0;
    progress(done, total);
    for (const table of TABLES) {
      const hash = createHash('sha256');
      for await (const rows of pages(source, table)) {
        for (const row of rows) hash.update(`${JSON.stringify(row)}\n`);
        await target.insert(table, rows);
        done += rows.length;
        progress(done, total);
      }
      sourceDigests.set(table.name, hash.digest('hex'));
    }
    for (const spec of SINGLETONS) await target.writeSingleton(spec, await source.readSingleton(spec));
    for (const { table, column } of NUMBERED) {
      const spec = specOf(table);
      await target.setHighWater(spec, column, await source.highWater(spec, column));
    }
    await target.resumeTriggers();

    // Read back from the target, inside its transaction, before anything is committed.
    const tables: TableReport[] = [];
    for (const table of TABLES) {
      const hash = createHash('sha256');
      let rows = 0;
      for await (const page of pages(target, table)) {
        for (const row of page) hash.update(`${JSON.stringify(row)}\n`);
        rows += page.length;
      }
      tables.push({
        table: table.name,
        rows,
        sourceDigest: sourceDigests.get(table.name) ?? '',
        targetDigest: hash.digest('hex'),
      });
    }
    const differing = tables
      .filter((t) => t.sourceDigest !== t.targetDigest || t.rows !== counts.get(t.table))
      .map((t) => t.table);
    for (const spec of SINGLETONS) {
      if (
        JSON.stringify(await source.readSingleton(spec)) !== JSON.stringify(await target.readSingleton(spec))
      )
        differing.push(spec.name);
    }
    for (const { table, column, neverReused } of NUMBERED) {
      const spec = specOf(table);
      // The others number on from their largest row on SQLite, which cannot hold a higher mark.
      if (!neverReused) continue;
      if ((await source.highWater(spec, column)) !== (await target.highWater(spec, column)))
        differing.push(`${table} numbering`);
    }
    if (differing.length > 0) {
      await target.rollback();
      return {
        ok: false,
        code: 'mismatch',
        message: `the copy differs from the source in ${differing.join(', ')}; nothing was written`,
        tables,
      };
    }
    await target.commit();
    return { ok: true, tables, rows: total };
  } catch (error) {
    await target.rollback();
    throw error;
  } finally {
    await source.rollback();
  }
}

async function* pages(side: TransferSide, table: TableSpec): AsyncGenerator<Values[]> {
  let after: Values | undefined;
  for (;;) {
    const rows = await side.page(table, after, PAGE);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    after = keyOf(table, rows.at(-1)!);
  }
}

function specOf(name: string): TableSpec {
  const spec = TABLES.find((t) => t.name === name);
  if (spec === undefined) throw new Error(`no table ${name} in TABLES`);
  return spec;
}
