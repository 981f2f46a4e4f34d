import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { BENCH_CONTEXT, CLAIM_COUNT, coldRequests } from './fixtures.ts';
import { summarizeProfiles } from './profile-summary.ts';

// `npm run bench:mcp [-- --duration 10 --connections 50 --warmup 2 --cold]`
// `tools/call ppx_get_effective_profile` over Streamable HTTP: the provider's /mcp (bearer token
// for `${url}/mcp`, auth, grant re-read, policy, store, resolution, audit) side by side with a
// bare SDK server returning the same result precomputed (bench/mcp-baseline-server.ts), in the
// same run, one after the other, with the same autocannon load. Writes bench/results/mcp.json.
// BENCH_PROFILE=1 runs the provider under --cpu-prof and prints its hot spots afterwards.
// --cold gives every request a context of its own, so the provider can reuse nothing between
// requests (the bare server answers the same precomputed result; results in mcp-cold.json).

import { type Child, startChild, stopChild } from './children.ts';

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
const resultsFile = cold ? 'mcp-cold.json' : 'mcp.json';
const duration = Number(args.duration);
const connections = Number(args.connections);
const warmup = Number(args.warmup);
if (!(duration > 0) || !(connections > 0) || !(warmup >= 0))
  throw new Error('bad --duration/--connections/--warmup');
const profiling = process.env['BENCH_PROFILE'] === '1';

const PROTOCOL_VERSION = '2025-11-25';
const TOOL = 'ppx_get_effective_profile';
const bodyFor = (context: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: TOOL, arguments: { context } },
  });
const BODY = bodyFor(BENCH_CONTEXT);

interface Target {
  readonly name: 'provider' | 'bare-sdk';
  readonly url: string;
  readonly headers: Record<string, string>;
}

function headers(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/** One call, checked: 200, a JSON-RPC result that is not an error, the full 200 claims. */
async function verify(target: Target): Promise<{ result: unknown; bytes: number }> {
  const res = await fetch(target.url, {
    method: 'POST',
    headers: target.headers,
    body: BODY,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${target.name}: ${res.status}: ${text.slice(0, 300)}`);
  const json = JSON.parse(text) as {
    result?: { isError?: boolean; structuredContent?: { data?: { claims?: unknown[] } } };
  };
  const claims = json.result?.structuredContent?.data?.claims;
  if (json.result?.isError || !Array.isArray(claims) || claims.length !== CLAIM_COUNT) {
    throw new Error(`${target.name}: expected ${CLAIM_COUNT} claims: ${text.slice(0, 300)}`);
  }
  return { result: json.result, bytes: Buffer.byteLength(text) };
}

function load(target: Target, seconds: number, title: string): Promise<Result> {
  return Promise.resolve(
    autocannon({
      title,
      url: target.url,
      method: 'POST',
      headers: target.headers,
      body: BODY,
      ...(cold ? { requests: coldRequests(bodyFor) } : {}),
      connections,
      duration: seconds,
      timeout: 10,
    }),
  );
}

interface Row {
  target: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  responseBytes: number;
}

function table(rows: Row[], ratio: number): string {
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
    `throughput ratio provider/bare-sdk: ${ratio.toFixed(3)} (target >= 0.8)${cold ? ' — cold: every request a new context' : ''}`,
  ].join('\n');
}

async function main(): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-mcp-'));
  const children: Child[] = [];
  const deadline = setTimeout(
    () => {
      console.error('bench:mcp: overall time limit reached, stopping');
      for (const c of children) c.proc.kill('SIGKILL');
      process.exit(2);
    },
    (2 * (duration + warmup) + 120) * 1000,
  );
  deadline.unref();
  try {
    const cpuProf = profiling ? ['--cpu-prof', `--cpu-prof-dir=${resultsDir}`] : [];
    children.push(startChild('provider', [join(here, 'mcp-provider-server.ts')], { execArgv: cpuProf }));
    const info = await children[0]!.ready;
    const provider: Target = { name: 'provider', url: `${info['url']}/mcp`, headers: headers(info['token']) };
    const first = await verify(provider);
    // The bare server answers exactly what the provider answered.
    const payload = join(tmp, 'result.json');
    writeFileSync(payload, JSON.stringify(first.result));
    children.push(startChild('bare-sdk', [join(here, 'mcp-baseline-server.ts'), payload]));
    const bareInfo = await children[1]!.ready;
    const bare: Target = { name: 'bare-sdk', url: `${bareInfo['url']}/mcp`, headers: headers() };
    const sizes = new Map([
      ['provider', first.bytes],
      ['bare-sdk', (await verify(bare)).bytes],
    ]);

    const rows: Row[] = [];
    for (const t of [provider, bare]) {
      if (warmup > 0) {
        console.error(`bench:mcp: warming up ${t.name} (${warmup} s)`);
        const w = await load(t, warmup, `${t.name} warmup`);
        if (w.non2xx > 0 || w.errors > 0)
          throw new Error(`${t.name} warmup: ${w.non2xx} non-2xx, ${w.errors} errors`);
      }
      console.error(`bench:mcp: measuring ${t.name} (${duration} s, ${connections} connections)`);
      const r = await load(t, duration, t.name);
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r['2xx'] === 0) {
        throw new Error(
          `${t.name}: ${r['2xx']} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
        );
      }
      rows.push({
        target: t.name,
        reqPerSec: r.requests.mean,
        p50: r.latency.p50,
        p99: r.latency.p99,
        requests: r['2xx'],
        non2xx: r.non2xx,
        errors: r.errors,
        responseBytes: sizes.get(t.name)!,
      });
      await verify(t); // still the full answer after the load
    }
    const ratio = rows[0]!.reqPerSec / rows[1]!.reqPerSec;
    console.log(table(rows, ratio));
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      request: JSON.parse(BODY),
      protocolVersion: PROTOCOL_VERSION,
      cold,
      connections,
      durationSeconds: duration,
      warmupSeconds: warmup,
      profiling,
      results: rows,
      throughputRatio: ratio,
    };
    writeFileSync(join(resultsDir, resultsFile), `${JSON.stringify(out, null, 2)}\n`);
    console.error(`bench:mcp: results written to ${join(resultsDir, resultsFile)}`);
  } finally {
    await Promise.all(children.map(stopChild));
    rmSync(tmp, { recursive: true, force: true });
    clearTimeout(deadline);
  }
  if (profiling) summarizeProfiles(resultsDir, 25);
}

main().catch((e: unknown) => {
  console.error(`bench:mcp failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
