import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { SCALE_DEFAULTS, seedScale } from '../src/operations/seed/scale-seed.ts';
import { openProvider } from '../src/provider.ts';
import { startChild, stopChild } from './children.ts';
import { BENCH_CONTEXT } from './fixtures.ts';
import { cpuMicros, machine, runMain, writeResults } from './harness.ts';
import { BENCH_DATABASE_URL, type BenchSchema, benchSchema, namedSchema } from './postgres-schema.ts';

// `npm run bench:scale [-- --store sqlite|postgres|both --sizes 5,50,500,5000,50000 --duration 10
// --budget-minutes 30 --max-gb 30 --database-url postgres://… --sqlite-path PATH --postgres-schema NAME]`
// How the provider's cost grows with its store (issue 14, item 5), on each store: one store grown by
// `ppx seed --scale`'s seeder to each size in turn (subjects × 200 claims, 20 grants and 200
// audit events each), and at each size the real provider (a child process) answering, one
// request at a time (latency, not queueing), the effective profile of the first scale subject
// (200 claims) under one of its grants, and that subject's audit log (newest 50). The first size
// is the baseline of the same run. Stops growing when seeding has taken --budget-minutes, or the
// store reaches --max-gb, and says so. On PostgreSQL the store is a fresh schema of the database
// at --database-url (PPX_BENCH_DATABASE_URL, the local server by default), dropped afterwards; its
// size is the schema's tables, indexes and TOAST. Writes bench/results/scale.json (scale-<store>.json
// for one store).
//
// A kept store (issue 23, item 5): seeding 10M claims takes 15-30 min, too long to repeat for
// every change. `--sqlite-path PATH` grows the SQLite file at PATH and `--postgres-schema NAME` the
// schema NAME of --database-url, and neither is removed afterwards; run again, they are found
// holding the subjects seeded before and grow from there. The sizes smaller than what a kept store
// already holds are measured on a fresh store of the run's own (so the first size stays the
// baseline of the same run), the rest on the kept store.

const here = import.meta.dirname;

interface Point {
  subjects: number;
  claims: number;
  grants: number;
  auditEvents: number;
  seedSeconds: number;
  dbBytes: number;
  readP50: number;
  readP99: number;
  /** CPU microseconds of the provider process per request (Linux /proc), NaN elsewhere. */
  readCpuMicros: number;
  auditP50: number;
  auditP99: number;
  auditCpuMicros: number;
}

/** Where a run's store is, and how big it is now. */
interface BenchStore {
  readonly kind: 'sqlite' | 'postgres';
  /** A file path, or a PostgreSQL URL with the run's schema as its search_path. */
  readonly location: string;
  size(): Promise<number>;
  drop(): Promise<void>;
}

function sqliteStore(path: string): BenchStore {
  return {
    kind: 'sqlite',
    location: path,
    size: async () => [path, `${path}-wal`].filter(existsSync).reduce((sum, p) => sum + statSync(p).size, 0),
    drop: async () => undefined,
  };
}

function postgresStore(databaseUrl: string, kept?: string): BenchStore {
  const schema = kept === undefined ? benchSchema('bench_scale', databaseUrl) : keptSchema(databaseUrl, kept);
  return {
    kind: 'postgres',
    location: schema.url,
    size: () =>
      schema.onServer(async (c) =>
        Number(
          (
            await c.query(
              `SELECT coalesce(sum(pg_total_relation_size(cl.oid)), 0) AS n FROM pg_class cl
                 JOIN pg_namespace n ON n.oid = cl.relnamespace WHERE n.nspname = $1 AND cl.relkind = 'r'`,
              [schema.name],
            )
          ).rows[0]?.n ?? 0,
        ),
      ),
    drop: () => (kept === undefined ? schema.drop() : Promise.resolve()),
  };
}

/** A schema the run keeps: --postgres-schema NAME. */
function keptSchema(databaseUrl: string, name: string): BenchSchema {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error('--postgres-schema is a lower-case identifier');
  return namedSchema(name, databaseUrl, { keep: true });
}

/**
 * How many scale subjects `store` holds: seeding writes subjects in order, so the first index
 * whose first grant is missing, found by a binary search over getGrant.
 */
async function subjectsIn(store: BenchStore): Promise<number> {
  if (store.kind === 'sqlite' && !existsSync(store.location)) return 0;
  const deps = await openProvider(storeConfig(store));
  try {
    const has = async (i: number) =>
      (await deps.store.getGrant(`ppx:grant:scale-${String(i).padStart(7, '0')}-000`)) !== undefined;
    if (!(await has(0))) return 0;
    let low = 0; // held
    let high = 1;
    while (await has(high)) {
      low = high;
      high *= 2;
    }
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (await has(mid)) low = mid;
      else high = mid;
    }
    return high;
  } finally {
    await deps.store.close();
  }
}

function storeConfig(store: BenchStore) {
  const config = loadConfig(
    store.kind === 'sqlite'
      ? { dbPath: store.location, rateLimit: '0' }
      : { databaseUrl: store.location, rateLimit: '0' },
    {},
  );
  if (!config.ok) throw new Error(config.error.description);
  return config.value;
}

/**
 * One request at a time for `seconds` (latency, not queueing), timed to the microsecond (autocannon
 * reports whole milliseconds, too coarse to see a 20 % change of a 1 ms read); each answer is
 * read whole and must be 200.
 */
async function latency(
  url: string,
  init: { method: 'GET' | 'POST'; token: string; body?: string },
  seconds: number,
  pid: number | undefined,
) {
  const headers = { authorization: `Bearer ${init.token}`, 'content-type': 'application/json' };
  const times: number[] = [];
  const cpuBefore = cpuMicros(pid);
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const t0 = performance.now();
    const r = await fetch(url, { method: init.method, headers, ...(init.body ? { body: init.body } : {}) });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    times.push(performance.now() - t0);
  }
  const cpuAfter = cpuMicros(pid);
  const cpu =
    cpuBefore !== undefined && cpuAfter !== undefined
      ? Math.round((cpuAfter - cpuBefore) / times.length)
      : NaN;
  times.sort((x, y) => x - y);
  const at = (q: number) =>
    Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 1000) / 1000;
  return { p50: at(0.5), p99: at(0.99), requests: times.length, cpu };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '5,50,500,5000,50000' },
      duration: { type: 'string', default: '10' },
      'budget-minutes': { type: 'string', default: '30' },
      'max-gb': { type: 'string', default: '30' },
      store: { type: 'string', default: 'sqlite' },
      'database-url': {
        type: 'string',
        default: BENCH_DATABASE_URL,
      },
      'sqlite-path': { type: 'string' },
      'postgres-schema': { type: 'string' },
    },
  });
  const kinds =
    values.store === 'both'
      ? (['sqlite', 'postgres'] as const)
      : ([values.store] as ('sqlite' | 'postgres')[]);
  if (!kinds.every((k) => k === 'sqlite' || k === 'postgres'))
    throw new Error('--store is sqlite, postgres or both');
  const sizes = values.sizes.split(',').map(Number);
  if (sizes.some((n, i) => !Number.isInteger(n) || n < 1 || (i > 0 && n <= sizes[i - 1]!))) {
    throw new Error('--sizes is a rising list of subject counts, e.g. 5,50,500');
  }
  const duration = Number(values.duration);
  const budgetSeconds = Number(values['budget-minutes']) * 60;
  const maxBytes = Number(values['max-gb']) * 1e9;
  const runs: Run[] = [];
  const limits = { duration, budgetSeconds, maxBytes, budgetText: values };
  for (const kind of kinds) {
    const keptAt = kind === 'sqlite' ? values['sqlite-path'] : values['postgres-schema'];
    const kept =
      keptAt === undefined
        ? undefined
        : kind === 'sqlite'
          ? sqliteStore(keptAt)
          : postgresStore(values['database-url'], keptAt);
    const held = kept === undefined ? 0 : await subjectsIn(kept);
    if (kept !== undefined) console.error(`bench:scale: ${kind}: the kept store holds ${held} subjects`);
    const fresh = sizes.filter((n) => kept === undefined || n < held);
    const points: Point[] = [];
    let stopped: string | undefined;
    if (fresh.length > 0) {
      const dir = mkdtempSync(join(tmpdir(), 'ppx-bench-scale-'));
      const store =
        kind === 'sqlite' ? sqliteStore(join(dir, 'ppx.db')) : postgresStore(values['database-url']);
      try {
        const run = await grow(store, fresh, 0, limits);
        points.push(...run.points);
        stopped = run.stopped;
      } finally {
        await store.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const rest = sizes.filter((n) => !fresh.includes(n));
    if (kept !== undefined && rest.length > 0 && stopped === undefined) {
      const run = await grow(kept, rest, held, limits);
      points.push(...run.points);
      stopped = run.stopped;
    }
    runs.push({ store: kind, points, ...(stopped ? { stopped } : {}) });
  }
  for (const run of runs) printRun(run);
  console.log(
    'targets (issue 14): read p50 at the largest store within 20 % of the first; audit listing p99 under 10 ms',
  );
  writeResults('bench:scale', kinds.length > 1 ? 'scale.json' : `scale-${kinds[0]}.json`, {
    ...machine(),
    duration,
    runs,
  });
}

interface Run {
  readonly store: 'sqlite' | 'postgres';
  readonly points: Point[];
  readonly stopped?: string;
}

interface Limits {
  readonly duration: number;
  readonly budgetSeconds: number;
  readonly maxBytes: number;
  readonly budgetText: { readonly 'budget-minutes': string; readonly 'max-gb': string };
}

/**
 * Grows `store`, which holds `held` subjects, to each size in turn, measuring at each. The seeding
 * time counts this run's seeding only (a kept store's earlier seeding is not known here).
 */
async function grow(store: BenchStore, sizes: readonly number[], held: number, limits: Limits): Promise<Run> {
  const { duration } = limits;
  const points: Point[] = [];
  let stopped: string | undefined;
  let seeded = held;
  let seedSeconds = 0;
  let grants = held * SCALE_DEFAULTS.grantsPerSubject;
  let auditEvents = held * SCALE_DEFAULTS.auditPerSubject;
  for (const target of sizes) {
    if (target > seeded) {
      const deps = await openProvider(storeConfig(store));
      console.error(`bench:scale: ${store.kind}: seeding subjects ${seeded}..${target - 1}`);
      const report = await seedScale(deps, {
        ...SCALE_DEFAULTS,
        subjects: target - seeded,
        firstSubject: seeded,
      });
      await deps.store.close();
      seeded = target;
      seedSeconds += report.seconds;
      grants += report.grants;
      auditEvents += report.auditEvents;
    }
    const child = startChild('provider', [join(here, 'scale-server.ts'), store.location]);
    try {
      const info = await child.ready;
      const url = info['url']!;
      const pid = child.proc.pid;
      const read = {
        method: 'POST',
        token: info['grantToken']!,
        body: JSON.stringify({ context: BENCH_CONTEXT }),
      } as const;
      // Warm up, then one request at a time.
      const listing = { method: 'GET', token: info['subjectToken']! } as const;
      const listingUrl = `${url}/v1/audit/events?order=newest&limit=50`;
      await latency(`${url}/v1/profile/effective`, read, 2, pid);
      const reads = await latency(`${url}/v1/profile/effective`, read, duration, pid);
      await latency(listingUrl, listing, 1, pid);
      const audit = await latency(listingUrl, listing, duration, pid);
      const point: Point = {
        subjects: seeded,
        claims: seeded * SCALE_DEFAULTS.claimsPerSubject,
        grants,
        auditEvents,
        seedSeconds: Math.round(seedSeconds),
        dbBytes: await store.size(),
        readP50: reads.p50,
        readP99: reads.p99,
        readCpuMicros: reads.cpu,
        auditP50: audit.p50,
        auditP99: audit.p99,
        auditCpuMicros: audit.cpu,
      };
      points.push(point);
      console.error(`bench:scale: ${store.kind}: ${JSON.stringify(point)}`);
    } finally {
      await stopChild(child);
    }
    if (seedSeconds > limits.budgetSeconds) {
      stopped = `seeding took ${Math.round(seedSeconds / 60)} min, past the ${limits.budgetText['budget-minutes']} min budget`;
      break;
    }
    const bytes = await store.size();
    if (bytes > limits.maxBytes) {
      stopped = `the store is ${(bytes / 1e9).toFixed(1)} GB, past the ${limits.budgetText['max-gb']} GB budget`;
      break;
    }
  }
  return { store: store.kind, points, ...(stopped ? { stopped } : {}) };
}

function printRun(run: Run): void {
  const base = run.points[0]!;
  console.log(`\n${run.store}:`);
  console.log(
    '| subjects | claims | grants | audit events | seeding s | store MB | read p50 ms | read p99 ms | read p50 vs first | read CPU µs | audit p50 ms | audit p99 ms | audit CPU µs |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const p of run.points) {
    const growth =
      base.readP50 > 0 ? `${(((p.readP50 - base.readP50) / base.readP50) * 100).toFixed(0)} %` : 'n/a';
    console.log(
      `| ${p.subjects} | ${p.claims} | ${p.grants} | ${p.auditEvents} | ${p.seedSeconds} | ${(p.dbBytes / 1e6).toFixed(0)} | ${p.readP50} | ${p.readP99} | ${growth} | ${p.readCpuMicros} | ${p.auditP50} | ${p.auditP99} | ${p.auditCpuMicros} |`,
    );
  }
  console.log(run.stopped ? `stopped growing: ${run.stopped}` : 'every size reached');
}

runMain('bench:scale', main);
