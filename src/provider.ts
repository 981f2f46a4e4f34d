import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DpopNonces } from './auth/dpop-nonces.ts';
import { PairwiseIds } from './auth/pairwise.ts';
import { loadSigningKey } from './auth/signing-keys.ts';
import { TokenService } from './auth/tokens.ts';
import type { Config } from './config.ts';
import type { Deps } from './operations/deps.ts';
import { Metrics, timedStore } from './operations/provider/metrics.ts';
import { rateLimitsOf } from './operations/provider/rate-limits.ts';
import { MemoryProofLedger } from './store/proof-ledger.ts';
import { MemoryRateCounter, type RateCounter } from './store/rate-limits.ts';
import { openSqliteStore } from './store/sqlite/sqlite-store.ts';
import type { Store } from './store/store.ts';
import { readOnlyView } from './store/store-names.ts';

/**
 * Builds Deps, what every surface and CLI command shares: opens the store, loads the keys, wires
 * the change feed and the rate limits (server.ts, the composition root, mounts the surfaces).
 * Secrets (the signing key, the pairwise secret) live in the store so that every instance and
 * the CLI agree on them.
 */
export async function openProvider(config: Config, clock: () => Date = () => new Date()): Promise<Deps> {
  return providerOn(await openConfiguredStore(config), config, clock);
}

/**
 * The store the config names: PostgreSQL at `databaseUrl` when it is set (--database-url,
 * PPX_DATABASE_URL), else the SQLite file at `dbPath` (its folder created when missing).
 */
export async function openConfiguredStore(config: Pick<Config, 'dbPath' | 'databaseUrl'>): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    // Loaded when used: pg is not needed to open a SQLite file (every CLI command opens a store).
    const { openPostgresStore } = await import('./store/postgres/postgres-store.ts');
    return openPostgresStore(config.databaseUrl);
  }
  if (config.dbPath !== ':memory:') mkdirSync(dirname(config.dbPath), { recursive: true });
  return openSqliteStore(config.dbPath);
}

/**
 * Deps over a store that is already open. Operations get it as a ProviderStore (reads, audit,
 * transaction()); whoever opened it keeps the full Store (tests set up what no operation writes).
 * The change feed is the store's own: it publishes what the store's transactions commit.
 */
export async function providerOn(
  store: Store,
  config: Config,
  clock: () => Date,
  /**
   * Where rate limits are counted: the one given, else the store's shared counter (PostgreSQL:
   * every instance counts into the same windows), else this instance's memory.
   */
  rateCounter: RateCounter = store.sharedRateCounter ?? new MemoryRateCounter(),
): Promise<Deps> {
  const key = await loadSigningKey(store);
  const pairwiseSecret = await store.putSettingIfAbsent(
    'pairwise_secret',
    randomBytes(32).toString('base64url'),
  );
  const nonceSecret = config.dpopNonce
    ? await store.putSettingIfAbsent('dpop_nonce_secret', randomBytes(32).toString('base64url'))
    : undefined;
  const metrics = new Metrics();
  const verified = metrics.tokenVerifications;
  return {
    // Operations get readers, the audit append and transaction(): writes go through the latter.
    store: timedStore(readOnlyView(store), metrics),
    changes: store.changes,
    tokens: new TokenService(key, {
      issuer: config.baseUrl,
      onVerified: (outcome) => verified.series(outcome).inc(),
    }),
    pairwise: new PairwiseIds(pairwiseSecret),
    provider: {
      providerId: config.providerId,
      name: config.providerName,
      baseUrl: config.baseUrl,
      tokenTtlSeconds: config.tokenTtlSeconds,
    },
    clock,
    rateLimits: { counter: rateCounter, limits: rateLimitsOf(config), pendingCaps: config.pendingCaps },
    metrics,
    dpop: {
      ledger: store.sharedProofLedger ?? new MemoryProofLedger(),
      ...(nonceSecret !== undefined ? { nonces: new DpopNonces(nonceSecret) } : {}),
    },
  };
}
