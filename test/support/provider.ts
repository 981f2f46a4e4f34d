import { createServer } from 'node:net';
import { loadConfig } from '../../src/config.ts';
import type { GrantRecord } from '../../src/model/grant-record.ts';
import type { Deps } from '../../src/operations/deps.ts';
import { createGrant, type GrantDraft } from '../../src/operations/grants/consent-grants.ts';
import { DEMO_SUBJECT } from '../../src/operations/seed/demo-profile.ts';
import { seedDemo } from '../../src/operations/seed/seed-demo.ts';
import { issueGrantToken, issueSubjectToken } from '../../src/operations/tokens/issue-tokens.ts';
import { providerOn } from '../../src/provider.ts';
import { startServer } from '../../src/server.ts';
import type { RateCounter } from '../../src/store/rate-limits.ts';
import type { Store } from '../../src/store/store.ts';
import { postgresDatabase, type TestDatabase, testDatabase } from './test-database.ts';

/**
 * A real provider on a real port with a database of its own (test-database.ts: a SQLite file, or
 * with PPX_TEST_STORE=postgres a PostgreSQL schema), seeded with the demo profile.
 */
export interface TestProvider {
  readonly url: string;
  readonly deps: Deps;
  /**
   * The provider's store with every writer, for tests that must set up what no operation
   * writes (a review of another subject, a grant past its expiry). Writes through it commit
   * on their own, without the change events an operation would announce.
   */
  readonly store: Store;
  /**
   * Where the store lives, for what only another process shows (the CLI on the same database)
   * and for the few set-ups no store method writes (times of change: support/change-times.ts).
   */
  readonly database: TestDatabase;
  readonly subjectId: string;
  /** An owner token for the demo subject. */
  readonly subjectToken: string;
  /** Creates a grant (defaults: fragrance-demo, core+fragrance, read+query, 30 days) and a token for it. */
  grant(draft?: Partial<GrantDraft>): Promise<{ grant: GrantRecord; token: string }>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startTestProvider(
  options: {
    rateLimit?: number;
    clock?: () => Date;
    env?: Record<string, string>;
    /** Counts rate limits here instead of in this provider's own memory (shared by instances). */
    rateCounter?: RateCounter;
    /** Receives the server's log lines (dropped by default). */
    log?: (msg: string) => void;
    /**
     * The store in this PostgreSQL schema (created when missing), shared by every provider given
     * the same one: several instances on one database. Not dropped at close (the test drops it).
     */
    postgres?: { readonly url: string; readonly schema: string };
  } = {},
): Promise<TestProvider> {
  const port = await freePort();
  // A schema given is shared and stays; a database of its own is dropped at close.
  const database = options.postgres ? postgresDatabase(options.postgres) : testDatabase();
  const config = loadConfig(
    { ...database.config, port: String(port), rateLimit: String(options.rateLimit ?? 0) },
    options.env ?? {},
  );
  if (!config.ok) throw new Error(config.error.description);
  const store = await database.open();
  const deps = await providerOn(
    store,
    config.value,
    options.clock ?? (() => new Date()),
    options.rateCounter,
  );
  await seedDemo(deps);
  const server = await startServer(deps, config.value, options.log ?? (() => undefined));
  const subjectToken = (await issueSubjectToken(deps, DEMO_SUBJECT)).access_token;
  return {
    url: server.url,
    deps,
    store,
    database,
    subjectId: DEMO_SUBJECT,
    subjectToken,
    async grant(draft = {}) {
      const r = await createGrant(
        deps,
        {
          subject_id: DEMO_SUBJECT,
          client_id: 'fragrance-demo',
          purposes: ['recommendation'],
          allowed_domains: ['fragrance'],
          allowed_namespaces: ['core', 'fragrance'],
          allowed_operations: ['read', 'query'],
          expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
          ...draft,
        },
        'operator',
      );
      if (!r.ok) throw new Error(r.error.description);
      return { grant: r.value, token: (await issueGrantToken(deps, r.value)).access_token };
    },
    async close() {
      await server.close();
      await deps.store.close();
      await database.drop();
    },
  };
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  readonly json: any;
}

/** One HTTP call; `body` objects are sent as JSON, strings as they are. */
export async function api(
  base: string,
  path: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, {
    method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
