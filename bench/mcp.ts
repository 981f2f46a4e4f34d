import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, startChild } from './children.ts';
import { BENCH_CONTEXT, CLAIM_COUNT } from './fixtures.ts';
import {
  type BenchArgs,
  benchArgs,
  machine,
  measure,
  providerExecArgv,
  resultsDir,
  runMain,
  settings,
  type Target,
  withDeadline,
  writeResults,
} from './harness.ts';
import { bodyOf, call, type Generation, headersOf, MODERN, PROTOCOL_VERSION } from './mcp-requests.ts';
import { summarizeProfiles } from './profile-summary.ts';
import { markdown, type Round, roundsRecord, roundsTable, summarize } from './rounds.ts';

// `npm run bench:mcp [-- --generation both|2025-11-25|2026-07-28 --profile large|demo --rounds 3
//   --duration 10 --connections 50 --warmup 2 --cold]`
// `tools/call ppx_get_effective_profile` over Streamable HTTP, in each protocol generation, the
// provider's /mcp (bearer token for `${url}/mcp`, auth, grant re-read, policy, store, resolution,
// audit) side by side with a bare SDK server of the same generation returning the same result
// precomputed, in the same run, one after the other, the order alternating round by round, with
// the same autocannon load:
// - 2025-11-25: bench/mcp-baseline-server.ts (the low-level Server on the stateless transport,
//   pooled as the provider's 2025 leg pools it); results in mcp.json;
// - 2026-07-28: every request carries the envelope in `_meta` and the standard headers (no
//   initialize); bench/mcp-modern-baseline-server.ts (the SDK's `createMcpHandler`, one Server
//   per request as the SDK builds it); results in mcp-2026.json.
// One provider child serves both generations (the same process, as in production).
// `--profile demo` reads the demo profile (a ~6 KB answer) instead of the 200-claim fixture
// (~296 KB): the surface's fixed cost then weighs more (results files get `-demo`).
// BENCH_PROFILE=1 runs the provider under --cpu-prof and prints its hot spots afterwards (with
// --generation 2026-07-28, the profile is of that path alone).
// --cold gives every request a context of its own, so the provider can reuse nothing between
// requests (the bare servers answer the same precomputed result; results files get `-cold`).

const here = import.meta.dirname;
const GOAL = 0.8;

interface Leg {
  readonly generation: Generation;
  readonly baselineEntry: string;
  readonly baselineName: string;
  readonly resultsName: string;
}

const LEGS: readonly Leg[] = [
  {
    generation: PROTOCOL_VERSION,
    baselineEntry: 'mcp-baseline-server.ts',
    baselineName: 'bare-sdk',
    resultsName: 'mcp',
  },
  {
    generation: MODERN,
    baselineEntry: 'mcp-modern-baseline-server.ts',
    baselineName: 'bare-v2-handler',
    resultsName: 'mcp-2026',
  },
];

interface Measured {
  readonly leg: Leg;
  readonly rounds: Round[];
}

async function main(): Promise<void> {
  const args = benchArgs({
    generation: { type: 'string', default: 'both' },
    profile: { type: 'string', default: 'large' },
  });
  const which = String(args.extra['generation']);
  const profile = String(args.extra['profile']);
  if (which !== 'both' && which !== PROTOCOL_VERSION && which !== MODERN)
    throw new Error(`--generation must be both, ${PROTOCOL_VERSION} or ${MODERN}, not ${which}`);
  if (profile !== 'large' && profile !== 'demo')
    throw new Error(`--profile must be large or demo, not ${profile}`);
  const legs = LEGS.filter((l) => which === 'both' || which === l.generation);
  const claims = profile === 'large' ? CLAIM_COUNT : null;
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-mcp-'));
  const measured: Measured[] = [];
  try {
    // Twice the time limit when both generations run: withDeadline bounds one pair of targets.
    const limitArgs: BenchArgs = { ...args, rounds: args.rounds * legs.length };
    await withDeadline('bench:mcp', limitArgs, async (children) => {
      const providerChild = startChild(
        'provider',
        [join(here, 'provider-server.ts'), '--audience', 'mcp', '--profile', profile],
        { execArgv: providerExecArgv(args) },
      );
      children.push(providerChild);
      const info = await providerChild.ready;
      for (const leg of legs) {
        measured.push({
          leg,
          rounds: await measureLeg(args, leg, info, providerChild, children, tmp, claims),
        });
      }
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const suffix = `${profile === 'demo' ? '-demo' : ''}${args.cold ? '-cold' : ''}`;
  for (const { leg, rounds } of measured) {
    console.log(`## ${leg.generation}: provider vs ${leg.baselineName} (${profile} profile)\n`);
    console.log(`${roundsTable(rounds, args.cold, `target: ratio >= ${GOAL}`)}\n`);
    const generation = bodyOf(leg.generation)(BENCH_CONTEXT);
    writeResults('bench:mcp', `${leg.resultsName}${suffix}.json`, {
      ...machine(),
      request: JSON.parse(generation),
      protocolVersion: leg.generation,
      profile,
      ...settings(args),
      // mcp.json rows have never carried the mean latency or the timeouts (always 0: they fail the run).
      ...roundsRecord(rounds, ({ latencyMean, timeouts, ...row }) => row),
    });
  }
  if (measured.length > 1) console.log(`## Both generations\n\n${generationsTable(measured)}\n`);
  if (args.profiling) summarizeProfiles(resultsDir, 25);
}

/** One generation: its bare server started on the provider's own answer, then the rounds. */
async function measureLeg(
  args: BenchArgs,
  leg: Leg,
  info: Record<string, string>,
  providerChild: Child,
  children: Child[],
  tmp: string,
  claims: number | null,
): Promise<Round[]> {
  const bodyFor = bodyOf(leg.generation);
  const body = bodyFor(BENCH_CONTEXT);
  const provider: Target = {
    name: 'provider',
    url: `${info['url']}/mcp`,
    headers: headersOf(leg.generation, info['token']),
    pid: providerChild.proc.pid,
  };
  // The bare server answers exactly what the provider answered.
  const first = await call(provider, body, claims);
  const payload = join(tmp, `${leg.resultsName}-result.json`);
  writeFileSync(payload, JSON.stringify(first.result));
  const bareChild = startChild(leg.baselineName, [join(here, leg.baselineEntry), payload]);
  children.push(bareChild);
  const bareInfo = await bareChild.ready;
  const bare: Target = {
    name: leg.baselineName,
    url: `${bareInfo['url']}/mcp`,
    headers: headersOf(leg.generation),
    pid: bareChild.proc.pid,
  };
  const verify = async (t: Target) => (await call(t, body, first.claims)).bytes;
  return measure(`bench:mcp ${leg.generation}`, args, { bodyFor, verify }, [provider, bare]);
}

/** One line per generation: both targets' medians and the ratio. */
function generationsTable(measured: readonly Measured[]): string {
  const head = [
    'generation',
    'provider req/s',
    'bare req/s',
    'ratio (median, min–max)',
    'provider p50/p99 ms',
    'bare p50/p99 ms',
    'provider CPU µs/req',
    'bare CPU µs/req',
  ];
  const body = measured.map(({ leg, rounds }) => {
    const s = summarize(rounds);
    const [p, b] = s.targets;
    const lat = (t: typeof p) => `${t!.p50.median.toFixed(1)} / ${t!.p99.median.toFixed(1)}`;
    const cpu = (t: typeof p) =>
      Number.isFinite(t!.cpuPerRequest.median) ? t!.cpuPerRequest.median.toFixed(0) : 'n/a';
    return [
      leg.generation,
      p!.reqPerSec.median.toFixed(0),
      b!.reqPerSec.median.toFixed(0),
      `${s.ratio.median.toFixed(3)} (${s.ratio.min.toFixed(3)}–${s.ratio.max.toFixed(3)})`,
      lat(p),
      lat(b),
      cpu(p),
      cpu(b),
    ];
  });
  return `${markdown(head, body)}\ntarget: ratio >= ${GOAL} in each generation`;
}

runMain('bench:mcp', main);
