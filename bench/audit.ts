import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import type { Deps } from '../src/operations/deps.ts';
import { getEffectiveProfile } from '../src/operations/reads/effective-query-summary.ts';
import { issueGrantToken } from '../src/operations/tokens/issue-tokens.ts';
import { startServer } from '../src/server.ts';
import type { ProviderStore } from '../src/store/store.ts';
import { runEntry, seedBenchProvider, serveUntilStopped } from './bench-provider.ts';
import { startChild, stopChild } from './children.ts';
import { BENCH_BODY, BENCH_CLIENT, BENCH_CONTEXT, BENCH_PATH } from './fixtures.ts';
import { runMain } from './harness.ts';

// `npm run bench:audit [-- --duration 5 --rounds 2]`: does the audit write slow a read?
// Starts the real provider twice per round in child processes (`--serve`): once as it ships, once
// with every audit append replaced by a no-op. The switch is this file's own environment variable
// PPX_BENCH_AUDIT=noop, applied as a Deps wrapper below; the provider itself has no way to turn
// audit off. Each child is loaded with autocannon at 1 connection (the latency of one read) and
// at 50 (throughput, where audit group commit matters); modes alternate so drift hits both.

const SELF = fileURLToPath(import.meta.url);

/** `real`: audit as it ships; `noop`: every audit append does nothing. PPX_BENCH_AUDIT names the child's. */
type Mode = 'real' | 'noop';
const MODES: readonly Mode[] = ['real', 'noop'];

/** Bench only: the same store with appendAudit doing nothing. Everything else is untouched. */
function withoutAudit(store: ProviderStore): ProviderStore {
  return { ...store, appendAudit: async () => undefined };
}

function benchDeps(deps: Deps, mode: Mode): Deps {
  return mode === 'noop' ? { ...deps, store: withoutAudit(deps.store) } : deps;
}

/** Child: one provider; prints {"url","token"} and serves until SIGTERM or stdin closes. */
async function serve(mode: Mode): Promise<void> {
  const bench = await seedBenchProvider('ppx-bench-audit-');
  const token = (await issueGrantToken(bench.deps, bench.grant)).access_token;
  const server = await startServer(benchDeps(bench.deps, mode), bench.config, () => undefined);
  serveUntilStopped(bench, server, { url: server.url, token });
}

interface Sample {
  readonly reqPerSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
}

async function load(url: string, token: string, connections: number, duration: number): Promise<Sample> {
  const r: Result = await autocannon({
    url: url + BENCH_PATH,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: BENCH_BODY,
    connections,
    duration,
    timeout: 10,
  });
  return { reqPerSec: r.requests.mean, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

/** Reads recorded under the bench grant: proves which mode a child ran in. */
async function auditedReads(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/v1/audit/events?kind=effective&limit=500`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const json = (await res.json()) as { events: unknown[] };
  return json.events.length;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * In-process, microsecond resolution: N sequential getEffectiveProfile calls through the real
 * store and through the no-op wrapper, alternating in blocks of 100 so drift hits both.
 */
async function inProcess(n: number): Promise<string[]> {
  const { dir, deps: real, grant } = await seedBenchProvider('ppx-bench-audit-');
  const caller = { kind: 'grant' as const, clientId: BENCH_CLIENT, grant };
  const times = { on: [] as number[], off: [] as number[] };
  const run = async (deps: Deps, into: number[], count: number) => {
    for (let i = 0; i < count; i++) {
      const t = process.hrtime.bigint();
      const r = await getEffectiveProfile(deps, caller, { context: BENCH_CONTEXT });
      into.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (!r.ok) throw new Error(r.error.description);
    }
  };
  await run(real, [], 200);
  for (let done = 0; done < n; done += 100) {
    await run(real, times.on, 100);
    await run(benchDeps(real, 'noop'), times.off, 100);
  }
  await real.store.close();
  rmSync(dir, { recursive: true, force: true });
  const pct = (xs: number[], q: number) =>
    [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? 0;
  const line = (name: string, xs: number[]) =>
    `| ${name} | ${(1000 / mean(xs)).toFixed(0)} | ${pct(xs, 0.5).toFixed(3)} | ${pct(xs, 0.99).toFixed(3)} |`;
  const d50 = pct(times.on, 0.5) - pct(times.off, 0.5);
  return [
    `In-process, ${n} sequential getEffectiveProfile calls per mode (200 claims, 20 modifiers):`,
    '',
    '| audit | ops/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    line('on', times.on),
    line('no-op', times.off),
    '',
    `difference (on − no-op): p50 ${d50.toFixed(3)} ms, p99 ${(pct(times.on, 0.99) - pct(times.off, 0.99)).toFixed(3)} ms`,
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '2' },
      calls: { type: 'string', default: '3000' },
    },
  });
  console.log([...(await inProcess(Number(values.calls))), ''].join('\n'));
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const shapes = [1, 50];
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? MODES : [...MODES].reverse();
    for (const mode of order) {
      const child = startChild(mode, [SELF, '--serve'], { env: { ...process.env, PPX_BENCH_AUDIT: mode } });
      try {
        const { url, token } = await child.ready;
        if (url === undefined || token === undefined)
          throw new Error(`${mode}: ready line lacks url or token`);
        await load(url, token, 10, 1); // warm-up: JIT, statement and content caches
        for (const connections of shapes) {
          const s = await load(url, token, connections, duration);
          if (s.non2xx > 0) throw new Error(`${mode}: ${s.non2xx} failed requests`);
          const key = `${mode}/${connections}`;
          samples.set(key, [...(samples.get(key) ?? []), s]);
        }
        const audited = await auditedReads(url, token);
        if ((mode === 'real') !== audited > 0) throw new Error(`${mode}: ${audited} audited reads`);
      } finally {
        await stopChild(child);
      }
    }
  }
  const rows: string[] = ['| connections | audit | req/s | p50 ms | p99 ms |', '|---|---|---|---|---|'];
  const diffs: string[] = [];
  for (const c of shapes) {
    const agg = (mode: Mode) => {
      const ss = samples.get(`${mode}/${c}`) ?? [];
      return {
        rps: mean(ss.map((s) => s.reqPerSec)),
        p50: mean(ss.map((s) => s.p50)),
        p99: mean(ss.map((s) => s.p99)),
      };
    };
    const on = agg('real');
    const off = agg('noop');
    rows.push(`| ${c} | on | ${on.rps.toFixed(0)} | ${on.p50.toFixed(2)} | ${on.p99.toFixed(2)} |`);
    rows.push(`| ${c} | no-op | ${off.rps.toFixed(0)} | ${off.p50.toFixed(2)} | ${off.p99.toFixed(2)} |`);
    diffs.push(
      `${c} connection(s): throughput ${(((on.rps - off.rps) / off.rps) * 100).toFixed(1)} %, ` +
        `p50 ${(on.p50 - off.p50).toFixed(2)} ms, p99 ${(on.p99 - off.p99).toFixed(2)} ms (audit on − no-op)`,
    );
  }
  console.log(`Node ${process.version}, ${rounds} round(s) × ${duration} s per mode and shape\n`);
  console.log([...rows, '', ...diffs].join('\n'));
}

if (process.argv.includes('--serve')) {
  runEntry(() => serve(process.env['PPX_BENCH_AUDIT'] === 'noop' ? 'noop' : 'real'));
} else {
  runMain('bench:audit', main);
}
