import { randomBytes } from 'node:crypto';
import pg from 'pg';

// The PostgreSQL server the tests use (PPX_TEST_DATABASE_URL, by default the local one), whether
// it answers, and schemas of their own for the tests that use it, dropped afterwards.

export const TEST_DATABASE_URL =
  process.env['PPX_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why the server cannot be used, or false when it answers. */
export async function postgresUnreachable(url = TEST_DATABASE_URL): Promise<string | false> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return false;
  } catch (error) {
    return `PostgreSQL not reachable at ${url} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A new schema name with `prefix`, remembered for dropSchemas. */
export function schemaName(prefix: string, made: string[]): string {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  made.push(schema);
  return schema;
}

/** A URL whose connections work in `schema` (libpq's options=-c search_path=…). */
export function urlInSchema(schema: string, url = TEST_DATABASE_URL): string {
  const out = new URL(url);
  out.searchParams.set('options', `-c search_path=${schema}`);
  return out.href;
}

/** Runs `work` on one connection of its own, closed afterwards whatever happens. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropSchemas(schemas: readonly string[], url = TEST_DATABASE_URL): Promise<void> {
  if (schemas.length === 0) return;
  await withClient(url, async (client) => {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
}

/** Ends the backend `pid` and waits (up to 5 s) until it is gone. */
export async function terminateBackend(pid: number, url = TEST_DATABASE_URL): Promise<void> {
  await withClient(url, (client) => client.query('SELECT pg_terminate_backend($1, 5000)', [pid]));
}

/** Resolves once `check` holds, looking every 5 ms (a state the code under test reaches by itself). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}
