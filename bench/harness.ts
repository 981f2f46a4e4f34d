import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { type Child, stopChild } from './children.ts';
import { BENCH_CONTEXT, coldRequests } from './fixtures.ts';
import type { Round } from './rounds.ts';

// What `npm run bench` (run.ts) and `npm run bench:mcp` (mcp.ts) share: the flags, the time limit
// on the whole run, the rounds of warm-up-then-measure with the order alternating and the checks
// that fail them, and the results file (the tables over the rounds are in rounds.ts). Each bench
// keeps its targets, its request body and its answer check.

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

export interface BenchArgs {
  readonly duration: number;
  readonly connections: number;
  readonly warmup: number;
  /** Measured runs per target; the order of the targets alternates from one round to the next. */
  readonly rounds: number;
  /** Every request a context of its own, so the provider can reuse nothing between requests. */
  readonly cold: boolean;
  /**
   * BENCH_PROFILE=1: the provider child runs under --cpu-prof; BENCH_PROFILE=alloc: with an
   * allocation profile (bench/alloc-profile.ts). See providerExecArgv.
   */
  readonly profiling: boolean;
  /** The values of the bench's own options (`extra` of benchArgs), unchecked. */
  readonly extra: Readonly<Record<string, string | boolean | undefined>>;
}

/**
 * `--duration <s> (10) --connections <n> (50) --warmup <s> (2; 15 below 10 connections) --rounds
 * <n> (3) --cold`, checked, plus the bench's own options `extra` (returned as they are in `extra`).
 *
 * A few connections send a small part of the requests a second that fifty do, and V8 compiles a
 * function's optimized code after enough calls: two seconds of one client left the provider half
 * compiled, and its first rounds cost twice its steady CPU a request (451 µs, then 165 from about
 * 20 s on: docs/benchmarks.md, "The lone client warms up slowly").
 */
export function benchArgs(extra: ParseArgsOptionsConfig = {}): BenchArgs {
  const { values } = parseArgs({
    options: {
      ...extra,
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      warmup: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      cold: { type: 'boolean', default: false },
    },
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const warmup = Number(values.warmup ?? (connections < 10 ? 15 : 2));
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds <= 0) throw new Error('--rounds must be a positive integer');
  if (!Number.isFinite(duration) || duration <= 0) throw new Error('--duration must be a positive number');
  if (!Number.isFinite(connections) || connections <= 0)
    throw new Error('--connections must be a positive number');
  if (!Number.isFinite(warmup) || warmup < 0) throw new Error('--warmup must be a number of seconds >= 0');
  return {
    duration,
    connections,
    warmup,
    rounds,
    cold: values.cold === true,
    profiling: process.env['BENCH_PROFILE'] === '1' || process.env['BENCH_PROFILE'] === 'alloc',
    extra: values,
  };
}

/**
 * The provider child's execArgv when profiling, into bench/results: --cpu-prof, or for
 * BENCH_PROFILE=alloc the allocation profile of bench/alloc-profile.ts (its directory given by
 * BENCH_ALLOC_DIR, which children.ts passes on with the rest of the environment).
 */
export function providerExecArgv(args: BenchArgs): string[] {
  if (!args.profiling) return [];
  mkdirSync(resultsDir, { recursive: true });
  if (process.env['BENCH_PROFILE'] === 'alloc') {
    process.env['BENCH_ALLOC_DIR'] = resultsDir;
    return ['--import', join(import.meta.dirname, 'alloc-profile.ts')];
  }
  return ['--cpu-prof', `--cpu-prof-dir=${resultsDir}`];
}

/**
 * Runs `body`, which pushes every child it starts onto `children`; stops them all when it ends.
 * Whatever happens (error, Ctrl-C, a hang), the children go away and the run stays bounded: past
 * 2 × 2 targets × rounds × (warm-up + duration) + 120 s they are killed and the process exits
 * with code 2.
 */
export async function withDeadline<T>(
  label: string,
  args: BenchArgs,
  body: (children: Child[]) => Promise<T>,
): Promise<T> {
  const children: Child[] = [];
  const deadline = setTimeout(
    () => {
      console.error(`${label}: overall time limit reached, stopping`);
      for (const c of children) c.proc.kill('SIGKILL');
      process.exit(2);
    },
    (4 * args.rounds * (args.duration + args.warmup) + 120) * 1000,
  );
  deadline.unref();
  const interrupted = () => {
    for (const c of children) c.proc.kill('SIGTERM');
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    return await body(children);
  } finally {
    await Promise.all(children.map(stopChild));
    clearTimeout(deadline);
    process.off('SIGINT', interrupted);
  }
}

export interface Target {
  readonly name: string;
  /** Where every request is POSTed. */
  readonly url: string;
  readonly headers: Record<string, string>;
  /**
   * The target's own request body for a context, when targets of one run speak different
   * protocols (bench:surfaces); the workload's `bodyFor` otherwise.
   */
  readonly bodyFor?: ((context: Record<string, unknown>) => string) | undefined;
  /** The serving process, to measure the CPU time it spends per request (Linux /proc). */
  readonly pid?: number | undefined;
  /**
   * More instances of the same service (bench:stores, two instances on one database): the load's
   * connections are spread evenly over `url` and these, and the figures are of them all together.
   */
  readonly also?: readonly { readonly url: string; readonly pid?: number | undefined }[];
  /** The database server's processes, whose CPU per request is reported beside the target's. */
  readonly databasePids?: () => readonly number[];
  /**
   * Files the target's processes write their lock waits to (PPX_BENCH_LOCK_WAITS_FILE: {locks,
   * waitedMs} so far), reported as a share of the time requests took.
   */
  readonly lockWaitFiles?: readonly string[];
}

/** The pids of every PostgreSQL server process on this machine (Linux /proc; [] elsewhere). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return [];
  }
  return pids;
}

/** CPU microseconds of several processes, by pid (a process gone or new is left out of the sum). */
function cpuByPid(pids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const micros = cpuMicros(pid);
    if (micros !== undefined) out.set(pid, micros);
  }
  return out;
}

/** Milliseconds the target's processes waited for locks so far (0 when none reports). */
function lockWaitedMs(target: Target): number {
  let sum = 0;
  for (const file of target.lockWaitFiles ?? []) {
    try {
      sum += Number((JSON.parse(readFileSync(file, 'utf8')) as { waitedMs?: number }).waitedMs ?? 0);
    } catch {
      // not written yet
    }
  }
  return sum;
}

/**
 * User + system CPU time of a process so far, in microseconds (Linux: /proc/PID/stat, in clock
 * ticks of 10 ms); undefined elsewhere. CPU per request is steadier than req/s on a shared
 * machine, and does not count the load generator, which shares the two cores.
 */
export function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10_000 : undefined;
  } catch {
    return undefined;
  }
}

/** One request outside the load; throws unless it is answered 200. Resolves to the body. */
export async function post(target: Target, body: string): Promise<string> {
  const res = await fetch(target.url, {
    method: 'POST',
    headers: target.headers,
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`${target.name}: expected 200, got ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

export interface Workload {
  /** The request body for a context: BENCH_CONTEXT every time, or a new one each time with --cold. */
  readonly bodyFor: (context: Record<string, unknown>) => string;
  /** One request, its answer checked in full; resolves to the response size in bytes. */
  readonly verify: (target: Target) => Promise<number>;
}

export interface Row {
  target: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  latencyMean: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  responseBytes: number;
  /** CPU microseconds the serving process spent per request (NaN when not measured). */
  cpuPerRequest: number;
  /** CPU microseconds the database server spent per request (NaN without `databasePids`). */
  databaseCpuPerRequest: number;
  /** Time the target's transactions waited for locks, over the time its requests took (NaN: none). */
  lockWaitShare: number;
}

function load(
  args: BenchArgs,
  work: Workload,
  target: Target,
  seconds: number,
  title: string,
): Promise<Result> {
  const urls = [target.url, ...(target.also ?? []).map((a) => a.url)];
  const share = Math.max(1, Math.floor(args.connections / urls.length));
  const bodyFor = target.bodyFor ?? work.bodyFor;
  const one = (url: string) =>
    Promise.resolve(
      autocannon({
        title,
        url,
        method: 'POST',
        headers: target.headers,
        body: bodyFor(BENCH_CONTEXT),
        ...(args.cold ? { requests: coldRequests(bodyFor) } : {}),
        connections: urls.length === 1 ? args.connections : share,
        duration: seconds,
        timeout: 10,
      }),
    );
  if (urls.length === 1) return one(target.url);
  return Promise.all(urls.map(one)).then(merged);
}

/**
 * The loads of several instances at once as one: throughput and counts added, p99 the worst of
 * them, p50 and the mean weighted by requests (close enough for instances of one service).
 */
function merged(results: readonly Result[]): Result {
  const total = results.reduce((n, r) => n + r['2xx'] + r.non2xx, 0) || 1;
  const weighted = (pick: (r: Result) => number) =>
    results.reduce((sum, r) => sum + pick(r) * (r['2xx'] + r.non2xx), 0) / total;
  const first = results[0]!;
  const statusCodeStats: Record<string, { count: number }> = {};
  for (const r of results)
    for (const [code, v] of Object.entries(r.statusCodeStats ?? {}))
      statusCodeStats[code] = { count: (statusCodeStats[code]?.count ?? 0) + (v as { count: number }).count };
  return {
    ...first,
    requests: { ...first.requests, mean: results.reduce((n, r) => n + r.requests.mean, 0) },
    latency: {
      ...first.latency,
      p50: weighted((r) => r.latency.p50),
      mean: weighted((r) => r.latency.mean),
      p99: Math.max(...results.map((r) => r.latency.p99)),
    },
    '2xx': results.reduce((n, r) => n + r['2xx'], 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
    statusCodeStats,
  } as Result;
}

/** CPU time of every process of a target so far (undefined when one cannot be read). */
function targetCpu(target: Target): number | undefined {
  let sum = 0;
  for (const pid of [target.pid, ...(target.also ?? []).map((a) => a.pid)]) {
    const micros = cpuMicros(pid);
    if (micros === undefined) return undefined;
    sum += micros;
  }
  return sum;
}

/**
 * Checks every target's answer, then runs `args.rounds` rounds; each loads every target once,
 * one after the other (never two at once: the machine has 2 cores), in the given order in the
 * first round, the reverse in the second, and so on, so that drift and whatever runs beside the
 * bench hit every target alike. Each target is warmed up before its first measured load; its
 * answer is checked again after every load. Fails on any non-2xx, error or timeout, or if no
 * request completed. Each round's rows come in the order of `targets`.
 */
export async function measure(
  label: string,
  args: BenchArgs,
  work: Workload,
  targets: readonly Target[],
): Promise<Round[]> {
  const sizes = new Map<string, number>();
  for (const t of targets) sizes.set(t.name, await work.verify(t));
  const rounds: Round[] = [];
  for (let round = 0; round < args.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    const rows = new Map<string, Row>();
    for (const t of order) {
      if (round === 0 && args.warmup > 0) await warmUp(label, args, work, t);
      console.error(
        `${label}: round ${round + 1}/${args.rounds}: measuring ${t.name} (${args.duration} s, ${args.connections} connections)`,
      );
      await settled(t);
      const cpuBefore = targetCpu(t);
      const dbBefore = cpuByPid(t.databasePids?.() ?? []);
      const waitedBefore = lockWaitedMs(t);
      await new Promise((resolve) => setTimeout(resolve, 150)); // a fresh lock-wait file first
      const r = await load(args, work, t, args.duration, t.name);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const waited = lockWaitedMs(t) - waitedBefore;
      const dbAfter = cpuByPid(t.databasePids?.() ?? []);
      const cpuAfter = targetCpu(t);
      const cpu =
        cpuBefore !== undefined && cpuAfter !== undefined
          ? (cpuAfter - cpuBefore) / Math.max(1, r['2xx'])
          : Number.NaN;
      let dbMicros = 0;
      for (const [pid, after] of dbAfter) dbMicros += after - (dbBefore.get(pid) ?? 0);
      const databaseCpu = t.databasePids === undefined ? Number.NaN : dbMicros / Math.max(1, r['2xx']);
      // Request time: every request's latency, summed (the mean times the count).
      const requestMs = r.latency.mean * r.requests.total;
      const lockShare = t.lockWaitFiles === undefined ? Number.NaN : waited / Math.max(1, requestMs);
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r['2xx'] === 0) {
        console.error(JSON.stringify(r.statusCodeStats));
        throw new Error(
          `${t.name}: ${r['2xx']} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
        );
      }
      rows.set(t.name, {
        ...rowOf(t, r, sizes.get(t.name)!, cpu),
        databaseCpuPerRequest: databaseCpu,
        lockWaitShare: lockShare,
      });
      await work.verify(t); // still the full answer after the load
    }
    rounds.push({ order: order.map((t) => t.name), rows: targets.map((t) => rows.get(t.name)!) });
  }
  return rounds;
}

/**
 * Waits (at most 5 s) until the target's processes are idle: no more than one clock tick of CPU
 * in a quarter of a second. What the previous load left running (a WAL checkpoint, a garbage
 * collection) is then not counted against this one, which matters when several targets share a
 * process (bench:surfaces).
 */
async function settled(t: Target): Promise<void> {
  const deadline = Date.now() + 5000;
  let before = targetCpu(t);
  while (before !== undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = targetCpu(t);
    if (now === undefined || now - before <= 10_000) return;
    before = now;
  }
}

async function warmUp(label: string, args: BenchArgs, work: Workload, t: Target): Promise<void> {
  console.error(`${label}: warming up ${t.name} (${args.warmup} s)`);
  const w = await load(args, work, t, args.warmup, `${t.name} warmup`);
  if (w.non2xx > 0 || w.errors > 0)
    throw new Error(`${t.name} warmup: ${w.non2xx} non-2xx, ${w.errors} errors`);
}

function rowOf(target: Target, r: Result, responseBytes: number, cpuPerRequest: number): Row {
  return {
    target: target.name,
    reqPerSec: r.requests.mean,
    p50: r.latency.p50,
    p99: r.latency.p99,
    latencyMean: r.latency.mean,
    requests: r['2xx'] + r.non2xx,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    responseBytes,
    cpuPerRequest,
    databaseCpuPerRequest: Number.NaN,
    lockWaitShare: Number.NaN,
  };
}

/** The head of a results file: when, and on what. */
export function machine() {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
  };
}

/** The run's settings, as a results file records them. */
export function settings(args: BenchArgs) {
  return {
    cold: args.cold,
    connections: args.connections,
    durationSeconds: args.duration,
    warmupSeconds: args.warmup,
    roundCount: args.rounds,
    profiling: args.profiling,
  };
}

/** Writes bench/results/`file` (pretty JSON). */
export function writeResults(label: string, file: string, envelope: object): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, file), `${JSON.stringify(envelope, null, 2)}\n`);
  console.error(`${label}: results written to ${join(resultsDir, file)}`);
}

/** Runs a bench's main: a failure is one line on stderr and exit code 1 (its children are stopped). */
export function runMain(label: string, main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    console.error(`${label} failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
