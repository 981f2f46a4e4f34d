import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { type Child, stopChild } from './children.ts';
import { BENCH_CONTEXT, coldRequests } from './fixtures.ts';

// What `npm run bench` (run.ts) and `npm run bench:mcp` (mcp.ts) share: the flags, the time limit
// on the whole run, the warm-up-then-measure loop and the checks that fail it, the table and the
// results file. Each bench keeps its targets, its request body, its answer check and its ratio.

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

export interface BenchArgs {
  readonly duration: number;
  readonly connections: number;
  readonly warmup: number;
  /** Every request a context of its own, so the provider can reuse nothing between requests. */
  readonly cold: boolean;
  /** BENCH_PROFILE=1: the provider child runs under --cpu-prof (providerExecArgv). */
  readonly profiling: boolean;
}

/** `--duration <s> (10) --connections <n> (50) --warmup <s> (2) --cold`, checked. */
export function benchArgs(): BenchArgs {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      warmup: { type: 'string', default: '2' },
      cold: { type: 'boolean', default: false },
    },
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const warmup = Number(values.warmup);
  if (!Number.isFinite(duration) || duration <= 0) throw new Error('--duration must be a positive number');
  if (!Number.isFinite(connections) || connections <= 0)
    throw new Error('--connections must be a positive number');
  if (!Number.isFinite(warmup) || warmup < 0) throw new Error('--warmup must be a number of seconds >= 0');
  return {
    duration,
    connections,
    warmup,
    cold: values.cold,
    profiling: process.env['BENCH_PROFILE'] === '1',
  };
}

/** The provider child's execArgv: --cpu-prof into bench/results when profiling. */
export function providerExecArgv(args: BenchArgs): string[] {
  if (!args.profiling) return [];
  mkdirSync(resultsDir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${resultsDir}`];
}

/**
 * Runs `body`, which pushes every child it starts onto `children`; stops them all when it ends.
 * Whatever happens (error, Ctrl-C, a hang), the children go away and the run stays bounded: past
 * 2 × (warm-up + duration) + 120 s they are killed and the process exits with code 2.
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
    (2 * (args.duration + args.warmup) + 120) * 1000,
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
}

function load(args: BenchArgs, work: Workload, target: Target, seconds: number, title: string) {
  return Promise.resolve(
    autocannon({
      title,
      url: target.url,
      method: 'POST',
      headers: target.headers,
      body: work.bodyFor(BENCH_CONTEXT),
      ...(args.cold ? { requests: coldRequests(work.bodyFor) } : {}),
      connections: args.connections,
      duration: seconds,
      timeout: 10,
    }),
  );
}

/**
 * Checks every target's answer, then loads them one after the other (never two at once: the
 * machine has 2 cores), each warmed up first, and checks the answer again after its load. Fails
 * on any non-2xx, error or timeout, or if no request completed.
 */
export async function measure(
  label: string,
  args: BenchArgs,
  work: Workload,
  targets: readonly Target[],
): Promise<Row[]> {
  const sizes = new Map<string, number>();
  for (const t of targets) sizes.set(t.name, await work.verify(t));
  const rows: Row[] = [];
  for (const t of targets) {
    if (args.warmup > 0) {
      console.error(`${label}: warming up ${t.name} (${args.warmup} s)`);
      const w = await load(args, work, t, args.warmup, `${t.name} warmup`);
      if (w.non2xx > 0 || w.errors > 0)
        throw new Error(`${t.name} warmup: ${w.non2xx} non-2xx, ${w.errors} errors`);
    }
    console.error(`${label}: measuring ${t.name} (${args.duration} s, ${args.connections} connections)`);
    const r = await load(args, work, t, args.duration, t.name);
    if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r['2xx'] === 0) {
      console.error(JSON.stringify(r.statusCodeStats));
      throw new Error(
        `${t.name}: ${r['2xx']} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
      );
    }
    rows.push(rowOf(t, r, sizes.get(t.name)!));
    await work.verify(t); // still the full answer after the load
  }
  return rows;
}

function rowOf(target: Target, r: Result, responseBytes: number): Row {
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
  };
}

/** The first target's throughput over the second's. */
export const throughputRatio = (rows: readonly Row[]): number => rows[0]!.reqPerSec / rows[1]!.reqPerSec;

/** The markdown table, then `ratioLine` (noting --cold). */
export function table(rows: readonly Row[], ratioLine: string, cold: boolean): string {
  const head = ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'resp bytes'];
  const body = rows.map((r) =>
    [
      r.target,
      r.reqPerSec.toFixed(0),
      r.p50.toFixed(1),
      r.p99.toFixed(1),
      r.non2xx,
      r.errors,
      r.responseBytes,
    ].map(String),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
    '',
    `${ratioLine}${cold ? ' — cold: every request a new context' : ''}`,
  ].join('\n');
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
