import pg from 'pg';

/** A row as node-postgres gives it (bigint columns come back as numbers: see `pgTypes`). */
type Row = Record<string, unknown>;

/** Anything that runs a query: the pool (autocommit reads) or one checked-out client (a transaction). */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

/**
 * The statements of the query modules, written with `?` placeholders as on the SQLite side and
 * numbered (`$1`, `$2`, …) here, once per distinct text. No query uses PostgreSQL's `?` operators.
 */
export interface Sql {
  all(text: string, ...values: unknown[]): Promise<Row[]>;
  get(text: string, ...values: unknown[]): Promise<Row | undefined>;
  /** Runs a write; returns how many rows it changed. */
  run(text: string, ...values: unknown[]): Promise<number>;
}

const numbered = new Map<string, string>();

function number(text: string): string {
  let out = numbered.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    if (numbered.size < 10_000) numbered.set(text, out);
  }
  return out;
}

/**
 * Whether a value holds U+0000, which PostgreSQL's text cannot (it refuses such a parameter:
 * "invalid byte sequence for encoding UTF8: 0x00"). No stored row can hold one, so a read
 * looking for it finds nothing, as SQLite answers for any id it does not hold.
 */
function holdsNul(values: readonly unknown[]): boolean {
  return values.some((v) => (typeof v === 'string' ? v.includes('\u0000') : Array.isArray(v) && holdsNul(v)));
}

export function sqlOn(db: Queryable): Sql {
  return {
    async all(text, ...values) {
      if (holdsNul(values)) return [];
      return (await db.query(number(text), values)).rows as Row[];
    },
    async get(text, ...values) {
      if (holdsNul(values)) return undefined;
      return (await db.query(number(text), values)).rows[0] as Row | undefined;
    },
    async run(text, ...values) {
      return (await db.query(number(text), values)).rowCount ?? 0;
    },
  };
}

/**
 * Type parsers for this store's pools: bigint (int8, also what count(*) gives) as a JS number.
 * Every bigint the store holds (seqs, epoch milliseconds, counters) stays below 2^53.
 */
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;
