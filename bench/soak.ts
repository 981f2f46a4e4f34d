import { parseArgs } from 'node:util';
import { crashStore, type StoreKind } from '../test/crash/stores.ts';
import { postgresUnreachable } from '../test/support/postgres.ts';
import { prng } from '../test/support/random.ts';
import { machine, runMain, writeResults } from './harness.ts';
import { type DrainReport, drainCheck } from './soak-drain.ts';
import { gcProbe, inspectorUrl } from './soak-gc.ts';
import { Mix, type Outcome, WEIGHTS } from './soak-mix.ts';
import { growthAfter, heapOf, Interval, type Row, rssOf } from './soak-stats.ts';
import { setUpWorld } from './soak-world.ts';

// `npm run soak [-- --minutes 10 --store sqlite|postgres --rate 50 --interval 30]`
// Mixed traffic on every surface at a steady rate for a while (docs/soak.md): `ppx serve` as a
// child process on a fresh database, the traffic of soak-mix.ts (HTTP API reads and write-back,
// MCP tools, A2A messages, AG-UI runs, OAuth and consent-v2 refreshes, consent pages and the
// whole consent cycle). Every interval
// one row: requests, errors, throughput, p50/p99, the server's RSS and heap, the database's size.
// At the end: totals, memory growth after the warm-up with a verdict, database growth per 1,000
// writes, and the graceful-shutdown check (soak-drain.ts). Writes bench/results/soak-<store>.json;
// exits 1 when a request failed or the drain check did not pass.

const LABEL = 'soak';

interface Options {
  readonly minutes: number;
  readonly store: StoreKind;
  readonly rate: number;
  readonly intervalSeconds: number;
  readonly warmupIntervals: number;
  readonly maxInFlight: number;
  readonly seed: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      store: { type: 'string', default: 'sqlite' },
      rate: { type: 'string', default: '50' },
      interval: { type: 'string', default: '30' },
      warmup: { type: 'string' },
      'max-in-flight': { type: 'string', default: '64' },
      seed: { type: 'string', default: '1' },
    },
  });
  const num = (name: string, raw: string | undefined, min: number) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number, ${min} or more`);
    return n;
  };
  if (values.store !== 'sqlite' && values.store !== 'postgres')
    throw new Error('--store is sqlite or postgres');
  const minutes = num('minutes', values.minutes, 0.1);
  const intervalSeconds = num('interval', values.interval, 1);
  const intervals = Math.max(1, Math.round((minutes * 60) / intervalSeconds));
  return {
    minutes,
    store: values.store,
    rate: num('rate', values.rate, 1),
    intervalSeconds,
    // The first tenth of the run (a minute of a 10-minute run), at least one interval.
    warmupIntervals:
      values.warmup === undefined ? Math.max(1, Math.ceil(intervals / 10)) : num('warmup', values.warmup, 0),
    maxInFlight: num('max-in-flight', values['max-in-flight'], 1),
    seed: num('seed', values.seed, 0),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function printRow(r: Row): void {
  const pad = (x: unknown, n: number) => String(x).padStart(n);
  console.log(
    `${pad(r.elapsed, 7)} ${pad(r.requests, 8)} ${pad(r.errors, 6)} ${pad(r.rps, 7)} ${pad(r.p50, 7)} ${pad(r.p99, 7)} ` +
      `${pad(r.rssMb, 16)} ${pad(`${r.heapAfterGcMb}/${r.heapSizeAfterGcMb}`, 19)} ${pad(`${r.heapFloorMb}–${r.heapMaxMb}`, 18)} ${pad(r.dbMb, 6)}`,
  );
}

async function main(): Promise<void> {
  const o = options();
  if (o.store === 'postgres') {
    const why = await postgresUnreachable();
    if (why !== false) throw new Error(why);
  }
  const store = crashStore(o.store);
  const world = await setUpWorld(store, o.minutes, 6).catch(async (e: unknown) => {
    await store.remove();
    throw e;
  });
  const pid = world.server.pid;
  const inspector = inspectorUrl(world.server.log.err);
  if (inspector === undefined) throw new Error(`no inspector URL from ppx serve: ${world.server.log.err}`);
  const gc = await gcProbe(inspector);
  const mix = new Mix(world, prng(o.seed));
  console.log(
    `${LABEL}: ${o.minutes} min on ${o.store}, ${o.rate} req/s, ` +
      `a row every ${o.intervalSeconds} s (the first ${o.warmupIntervals} are the warm-up); server pid ${pid}`,
  );
  console.log(
    'elapsed requests errors   req/s  p50 ms  p99 ms  after GC: RSS MB, heap MB used/size  heap MB floor–max  DB MB',
  );

  const rows: Row[] = [];
  const errors: { at: number; label: string; detail: string }[] = [];
  const byLabel = new Map<string, { requests: number; errors: number; ms: number[] }>();
  let interval = new Interval();
  let inFlight = 0;
  let deferred = 0;
  let writes = 0;
  let requests = 0;
  let phase: 'load' | 'drain' = 'load';
  const duringDrain = {
    started: 0,
    answered: 0,
    refused: 0,
    reset: 0,
    resets: [] as string[],
    otherErrors: [] as string[],
  };
  const startedAt = performance.now();
  const elapsed = () => (performance.now() - startedAt) / 1000;

  const settle = (out: Outcome) => {
    inFlight--;
    if (phase === 'drain') {
      if (out.ok) duringDrain.answered++;
      else if (out.code === 'ECONNREFUSED') duringDrain.refused++;
      else if (out.code !== undefined) {
        duringDrain.reset++;
        duringDrain.resets.push(`${out.label} after ${Math.round(out.ms)} ms: ${out.detail}`);
      } else duringDrain.otherErrors.push(`${out.label}: ${out.detail}`);
      return;
    }
    requests++;
    if (out.ok && out.writes) writes++;
    interval.add(out);
    const tally = byLabel.get(out.label) ?? { requests: 0, errors: 0, ms: [] };
    tally.requests++;
    tally.ms.push(out.ms);
    if (!out.ok) {
      tally.errors++;
      if (errors.length < 50)
        errors.push({ at: Math.round(elapsed()), label: out.label, detail: out.detail ?? '' });
    }
    byLabel.set(out.label, tally);
  };
  const launch = () => {
    if (inFlight >= o.maxInFlight) {
      deferred++;
      return;
    }
    inFlight++;
    if (phase === 'drain') duringDrain.started++;
    mix
      .next()
      .then(settle, (e: unknown) =>
        settle({ label: 'harness', ok: false, ms: 0, writes: false, detail: String(e) }),
      );
  };

  // Memory every 5 s, one row every interval.
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rss = rssOf(pid);
      const heap = await heapOf(world.base);
      if (rss !== undefined && heap !== undefined) {
        interval.sample({ rss, heapUsed: heap.used, heapTotal: heap.total, external: heap.external });
      }
      await sleep(5000);
    }
  })();
  const dbSizes: { elapsed: number; bytes: number; writes: number }[] = [];
  const rowsDone = (async () => {
    for (let i = 1; i * o.intervalSeconds <= o.minutes * 60 + 0.001; i++) {
      await sleep(startedAt + i * o.intervalSeconds * 1000 - performance.now());
      const bytes = await store.size();
      dbSizes.push({ elapsed: elapsed(), bytes, writes });
      const heapAfterGc = await gc.heapAfterGc();
      const rss = rssOf(pid) ?? Number.NaN;
      const row = interval.row(elapsed(), o.intervalSeconds, bytes, inFlight, { ...heapAfterGc, rss });
      interval = new Interval();
      rows.push(row);
      printRow(row);
    }
  })();

  // The steady rate: one action every 1/rate s, on a clock of its own (no drift).
  const period = 1000 / o.rate;
  const endAt = startedAt + o.minutes * 60_000;
  for (let n = 0; ; n++) {
    const due = startedAt + n * period;
    if (due >= endAt) break;
    await sleep(due - performance.now());
    launch();
  }
  await rowsDone;
  sampling = false;
  await sampler;
  gc.close();

  // SIGTERM with the load still coming and requests held in flight.
  phase = 'drain';
  let draining = true;
  const drainLoad = (async () => {
    const t0 = performance.now();
    for (let n = 0; draining; n++) {
      await sleep(t0 + n * period - performance.now());
      if (draining) launch();
    }
  })();
  const drain: DrainReport = await drainCheck(world);
  draining = false;
  await drainLoad;
  while (inFlight > 0) await sleep(20);

  const growth = growthAfter(rows, o.warmupIntervals);
  const afterWarmup = dbSizes[o.warmupIntervals - 1] ?? dbSizes[0];
  const lastDb = dbSizes.at(-1);
  const dbPerThousandWrites =
    afterWarmup && lastDb && lastDb.writes > afterWarmup.writes
      ? Math.round(((lastDb.bytes - afterWarmup.bytes) / (lastDb.writes - afterWarmup.writes)) * 1000) / 1024
      : Number.NaN;
  const total = {
    requests,
    errors: [...byLabel.values()].reduce((n, t) => n + t.errors, 0),
    writes,
    deferred,
    rps: Math.round((requests / (o.minutes * 60)) * 10) / 10,
  };
  const perLabel = Object.fromEntries(
    [...byLabel].map(([label, t]) => {
      const sorted = t.ms.sort((a, b) => a - b);
      const at = (p: number) =>
        Math.round((sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0) * 10) / 10;
      return [label, { requests: t.requests, errors: t.errors, p50: at(0.5), p99: at(0.99) }];
    }),
  );

  console.log('');
  console.table(perLabel);
  console.log(
    `total: ${total.requests} requests (${total.rps} req/s), ${total.errors} errors (target 0), ${total.writes} writes, ` +
      `${total.deferred} not started (${o.maxInFlight} already in flight)`,
  );
  console.log(
    `memory after the warm-up (${o.warmupIntervals} interval(s) left out): heap after GC ${growth.heapAfterGcFrom} → ${growth.heapAfterGcTo} MB ` +
      `(${growth.heapAfterGcSlopeMbPerMin} MB/min), RSS ${growth.rssFrom} → ${growth.rssTo} MB (${growth.rssSlopeMbPerMin} MB/min): ${growth.verdict}`,
  );
  console.log(
    `database: ${((lastDb?.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB at the end, ${dbPerThousandWrites.toFixed(0)} KB per 1,000 writes after the warm-up`,
  );
  console.log(
    `graceful shutdown: ${drain.held} requests held in flight across SIGTERM, ${drain.held - drain.heldFailures.length} answered; ` +
      `load meanwhile: ${duringDrain.started} started, ${duringDrain.answered} answered, ${duringDrain.refused} refused (listener closed), ` +
      `${duringDrain.reset} reset; exit ${drain.exit.code ?? drain.exit.signal} after ${drain.ms} ms: ${drain.ok ? 'passed' : 'FAILED'}`,
  );
  for (const f of drain.heldFailures) console.log(`  not answered: ${f}`);
  for (const r of duringDrain.resets) console.log(`  load request reset: ${r}`);
  for (const e of errors.slice(0, 10)) console.log(`  error at ${e.at} s: ${e.label}: ${e.detail}`);

  // After the clean stop: what the database holds, by table.
  const tables = (await store.tables()).slice(0, 8);
  console.log(
    `largest tables: ${tables.map((t) => `${t.table} ${(t.bytes / 1024 / 1024).toFixed(1)} MB`).join(', ')}`,
  );
  writeResults(LABEL, `soak-${o.store}.json`, {
    ...machine(),
    settings: { ...o, weights: WEIGHTS },
    rows,
    total,
    perLabel,
    growth,
    database: { sizes: dbSizes, kbPerThousandWritesAfterWarmup: dbPerThousandWrites, tables },
    drain: { ...drain, loadDuringDrain: duringDrain },
    backlog: mix.backlog,
    errors,
  });
  await store.remove();
  if (total.errors > 0 || !drain.ok) process.exit(1);
}

runMain(LABEL, main);
