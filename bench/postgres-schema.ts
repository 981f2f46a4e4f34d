import { randomBytes } from 'node:crypto';
import pg from 'pg';

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
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  const onServer = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    name,
    url: url.href,
    onServer,
    drop: () => onServer(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`))),
  };
}
