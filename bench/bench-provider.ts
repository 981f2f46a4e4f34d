import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../src/config.ts';
import type { GrantRecord } from '../src/model/grant-record.ts';
import { registerClient } from '../src/operations/accounts/clients.ts';
import type { Deps } from '../src/operations/deps.ts';
import { importProfile } from '../src/operations/export-import/import-profile.ts';
import { createGrant } from '../src/operations/grants/consent-grants.ts';
import { DEMO_CLIENTS, DEMO_SUBJECT } from '../src/operations/seed/demo-profile.ts';
import { seedDemo } from '../src/operations/seed/seed-demo.ts';
import { openProvider } from '../src/provider.ts';
import type { RunningServer } from '../src/server.ts';
import { processLockWaits } from '../src/store/postgres/lock-waits.ts';
import { freePort } from '../test/support/provider.ts';
import {
  BENCH_CLIENT,
  BENCH_NAMESPACES,
  BENCH_SUBJECT,
  benchProfile,
  CLAIM_COUNT,
  MODIFIER_COUNT,
} from './fixtures.ts';

// The provider every bench runs: a fresh SQLite FILE store holding the 200-claim, 20-modifier
// fixture (or another size of it, or the demo profile), a registered client and a grant over
// core, fragrance and travel (read + query, all three domains so nothing is cross-domain
// filtered), rate limiting off and everything else on.

export interface BenchProvider {
  readonly dir: string;
  readonly config: Config;
  readonly deps: Deps;
  readonly grant: GrantRecord;
}

function check<T>(
  r: { ok: true; value: T } | { ok: false; error: { description: string } },
  what: string,
): T {
  if (!r.ok) throw new Error(`bench provider: ${what} failed: ${r.error.description}`);
  return r.value;
}

/** The two profiles a bench provider can hold: the bench fixture, or the demo profile. */
export type BenchProfile = { readonly kind: 'bench'; readonly claims: number } | { readonly kind: 'demo' };
export const LARGE: BenchProfile = { kind: 'bench', claims: CLAIM_COUNT };
export const DEMO: BenchProfile = { kind: 'demo' };

/** The subject and client whose grant reads `profile`. */
export function readerOf(profile: BenchProfile): { subject: string; client: string } {
  return profile.kind === 'demo'
    ? { subject: DEMO_SUBJECT, client: DEMO_CLIENTS[0].client_id }
    : { subject: BENCH_SUBJECT, client: BENCH_CLIENT };
}

/**
 * A fresh provider in a temp directory holding `profile` (the 200-claim fixture by default; the
 * demo profile that `npm start --seed-demo` seeds, with its clients), and a grant over core,
 * fragrance and travel (read + query, the three domains) for the profile's client.
 */
export async function seedBenchProvider(
  tmpPrefix: string,
  profile: BenchProfile = LARGE,
  /** Runs on the empty store before anything is seeded (bench:audit-listing fills the log here). */
  beforeSeed?: (deps: Deps) => Promise<void>,
  /** A PostgreSQL store (an empty schema: bench:stores) instead of a SQLite file in the temp directory. */
  databaseUrl?: string,
): Promise<BenchProvider> {
  const dir = mkdtempSync(join(tmpdir(), tmpPrefix));
  // The base URL (and so the tokens' audience) must name the real port: pick a free one first.
  const port = String(await freePort());
  const config = check(
    loadConfig(
      {
        host: '127.0.0.1',
        port,
        ...(databaseUrl === undefined ? { dbPath: join(dir, 'ppx.db') } : { databaseUrl }),
        rateLimit: '0',
      },
      {},
    ),
    'loadConfig',
  );
  const deps = await openProvider(config);
  await beforeSeed?.(deps);
  if (profile.kind === 'demo') await seedDemo(deps);
  else await seedFixture(deps, profile.claims);
  const { subject, client } = readerOf(profile);
  const grant = check(
    await createGrant(
      deps,
      {
        subject_id: subject,
        client_id: client,
        purposes: ['recommendation'],
        allowed_domains: [...BENCH_NAMESPACES],
        allowed_namespaces: [...BENCH_NAMESPACES],
        allowed_operations: ['read', 'query'],
        expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      },
      'operator',
    ),
    'createGrant',
  );
  return { dir, config, deps, grant };
}

async function seedFixture(deps: Deps, claims: number): Promise<void> {
  const imported = check(await importProfile(deps, benchProfile(claims)), 'importProfile');
  if (imported.claims !== claims || imported.context_modifiers !== MODIFIER_COUNT) {
    throw new Error(
      `bench provider: imported ${imported.claims} claims, ${imported.context_modifiers} modifiers`,
    );
  }
  check(await registerClient(deps, { client_id: BENCH_CLIENT, name: 'Benchmark client' }), 'registerClient');
}

/**
 * Prints the ready line the parent waits for, then serves until SIGTERM/SIGINT or until stdin
 * closes (the parent went away). Exits through process.exit so that --cpu-prof writes its profile.
 * `bench` is the seeded provider (its temp directory goes too), or just the store an instance of
 * it serves from (instance-server.ts).
 */
export function serveUntilStopped(
  bench: Pick<BenchProvider, 'deps'> & { readonly dir?: string },
  server: RunningServer,
  ready: Record<string, string>,
): void {
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      await server.close();
      await bench.deps.store.close();
    } finally {
      if (bench.dir) rmSync(bench.dir, { recursive: true, force: true });
      process.exit(0);
    }
  };
  // PPX_BENCH_LOCK_WAITS_FILE (bench:stores): how long this process's PostgreSQL transactions have
  // waited for the store's locks so far, written there a few times a second for the parent to read.
  const waitsFile = process.env['PPX_BENCH_LOCK_WAITS_FILE'];
  if (waitsFile) {
    setInterval(() => writeFileSync(waitsFile, JSON.stringify(processLockWaits.snapshot())), 100).unref();
  }
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.on('error', () => void stop());
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

/** Runs a child entry's main, reporting a failure on stderr with exit code 1. */
export function runEntry(main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    process.stderr.write(`[provider] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
