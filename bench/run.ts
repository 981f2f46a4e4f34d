import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { BENCH_BODY, BENCH_PATH, CLAIM_COUNT, coldRequests } from './fixtures.ts';
import { summarizeProfiles } from './profile-summary.ts';

// `npm run bench [-- --duration 10 --connections 50 --warmup 2 --cold]`
// Starts the provider and the bare baseline as child processes, checks both answer correctly,
// then loads each in turn (never both at once: the machine has 2 cores) with autocannon and
// prints/saves the comparison. BENCH_PROFILE=1 runs the provider child under --cpu-prof and
// prints its hottest functions afterwards. --cold gives every request a context of its own, so
// the provider can reuse nothing between requests (results in latest-cold.json).

import { startChild, stopChild } from './children.ts';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, 'results');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    cold: { type: 'boolean', default: false },
  },
});
const cold = args.cold;
const resultsFile = cold ? 'latest-cold.json' : 'latest.json';
const duration = positive(args.duration, 'duration');
const connections = positive(args.connections, 'connections');
const warmup = Number(args.warmup);
if (!Number.isFinite(warmup) || warmup < 0) throw new Error('--warmup must be a number of seconds >= 0');
const profiling = process.env['BENCH_PROFILE'] === '1';

function positive(raw: string, name: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

interface Target {
  readonly name: 'provider' | 'baseline';
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** One request, checked: 200, JSON, the full 200 claims. Returns the response size in bytes. */
async function verify(target: Target): Promise<number> {
  const res = await fetch(target.url + BENCH_PATH, {
    method: 'POST',
    headers: target.headers,
    body: BENCH_BODY,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`${target.name}: expected 200, got ${res.status}: ${text.slice(0, 300)}`);
  const json = JSON.parse(text) as { claims?: unknown[]; applied_modifiers?: unknown[] };
  if (!Array.isArray(json.claims) || json.claims.length !== CLAIM_COUNT) {
    throw new Error(`${target.name}: expected ${CLAIM_COUNT} claims, got ${json.claims?.length ?? 'none'}`);
  }
  if (!Array.isArray(json.applied_modifiers) || json.applied_modifiers.length === 0) {
    throw new Error(`${target.name}: expected some applied modifiers for the bench context`);
  }
  return Buffer.byteLength(text);
}

function load(target: Target, seconds: number, title: string): Promise<Result> {
  const instance = autocannon({
    title,
    url: target.url + BENCH_PATH,
    method: 'POST',
    headers: target.headers,
    body: BENCH_BODY,
    ...(cold ? { requests: coldRequests((context) => JSON.stringify({ context })) } : {}),
    connections,
    duration: seconds,
    timeout: 10,
  });
  return Promise.resolve(instance);
}

interface Row {
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

function table(rows: Row[], ratio: number): string {
  const head = ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'resp bytes'];
  const body = rows.map((r) => [
    r.target,
    r.reqPerSec.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    String(r.non2xx),
    String(r.errors),
    String(r.responseBytes),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
    '',
    `throughput ratio provider/baseline: ${ratio.toFixed(3)} (${(ratio * 100).toFixed(1)} %)${cold ? ' — cold: every request a new context' : ''}`,
  ].join('\n');
}

async function main(): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  const providerArgs = profiling ? ['--cpu-prof', `--cpu-prof-dir=${resultsDir}`] : [];
  const children = [
    startChild('provider', [join(here, 'provider-server.ts')], { execArgv: providerArgs }),
    startChild('baseline', [join(here, 'baseline-server.ts')]),
  ];
  // Whatever happens (error, Ctrl-C, a hang), the children go away and the run stays bounded.
  const deadline = setTimeout(
    () => {
      console.error('bench: overall time limit reached, stopping');
      for (const c of children) c.proc.kill('SIGKILL');
      process.exit(2);
    },
    (2 * (duration + warmup) + 120) * 1000,
  );
  deadline.unref();
  process.once('SIGINT', () => {
    for (const c of children) c.proc.kill('SIGTERM');
    process.exit(130);
  });

  try {
    const [providerInfo, baselineInfo] = await Promise.all(children.map((c) => c.ready));
    const targets: Target[] = [
      {
        name: 'provider',
        url: providerInfo!['url']!,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${providerInfo!['token']}` },
      },
      { name: 'baseline', url: baselineInfo!['url']!, headers: { 'content-type': 'application/json' } },
    ];
    const sizes = new Map<string, number>();
    for (const t of targets) sizes.set(t.name, await verify(t));

    const rows: Row[] = [];
    for (const t of targets) {
      if (warmup > 0) {
        console.error(`bench: warming up ${t.name} (${warmup} s)`);
        const w = await load(t, warmup, `${t.name} warmup`);
        if (w.non2xx > 0 || w.errors > 0) {
          throw new Error(`${t.name} warmup: ${w.non2xx} non-2xx, ${w.errors} errors`);
        }
      }
      console.error(`bench: measuring ${t.name} (${duration} s, ${connections} connections)`);
      const r = await load(t, duration, t.name);
      const row = rowOf(t, r, sizes.get(t.name)!);
      rows.push(row);
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
        console.error(JSON.stringify(r.statusCodeStats));
        throw new Error(
          `${t.name}: ${r.non2xx} non-2xx responses, ${r.errors} errors, ${r.timeouts} timeouts`,
        );
      }
      if (row.requests === 0) throw new Error(`${t.name}: no request completed`);
      // A last check that the server still answers the full profile after the load.
      await verify(t);
    }

    const provider = rows.find((r) => r.target === 'provider')!;
    const baseline = rows.find((r) => r.target === 'baseline')!;
    const ratio = provider.reqPerSec / baseline.reqPerSec;
    console.log(table(rows, ratio));

    const out = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      path: BENCH_PATH,
      body: JSON.parse(BENCH_BODY),
      cold,
      connections,
      durationSeconds: duration,
      warmupSeconds: warmup,
      profiling,
      results: rows,
      throughputRatio: ratio,
    };
    writeFileSync(join(resultsDir, resultsFile), `${JSON.stringify(out, null, 2)}\n`);
    console.error(`bench: results written to ${join(resultsDir, resultsFile)}`);
  } finally {
    await Promise.all(children.map(stopChild));
    clearTimeout(deadline);
  }

  if (profiling) summarizeProfiles(resultsDir, 25);
}

main().catch((e: unknown) => {
  console.error(`bench failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
