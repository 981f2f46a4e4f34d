import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { urlInSchema, withClient } from '../test/support/postgres.ts';

// The PostgreSQL the benches run on (--database-url, PPX_BENCH_DATABASE_URL, the local server by
// default), and a schema of its own for each run, dropped afterwards.

export const BENCH_DATABASE_URL =
  process.env['PPX_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchSchema {
  readonly name: string;
  /** `databaseUrl` with the schema as every connection's search_path. */
  readonly url: string;
  /** Runs `work` on a connection of the server's own. */
  onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

export function benchSchema(prefix: string, databaseUrl: string): BenchSchema {
  return namedSchema(`${prefix}_${randomBytes(5).toString('hex')}`, databaseUrl, { keep: false });
}

/**
 * The schema `name` on the server at `databaseUrl`; `keep` (bench:scale --postgres-schema, a store
 * grown once and measured again) leaves it in place at the end instead of dropping it.
 */
export function namedSchema(name: string, databaseUrl: string, options: { keep: boolean }): BenchSchema {
  const onServer = <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => withClient(databaseUrl, work);
  return {
    name,
    url: urlInSchema(name, databaseUrl),
    onServer,
    drop: options.keep
      ? async () => undefined
      : () => onServer(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`))),
  };
}
