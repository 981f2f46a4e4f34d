import { deepStrictEqual } from 'node:assert';
import { join } from 'node:path';
import { a2aBodyFor, a2aCall } from './a2a-requests.ts';
import { startChild } from './children.ts';
import { BENCH_CONTEXT } from './fixtures.ts';
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
import { checked } from './http-requests.ts';
import { bodyOf, call, type Generation, MODERN, PROTOCOL_VERSION } from './mcp-requests.ts';
import { summarizeProfiles } from './profile-summary.ts';
import { markdown, type Round, roundsRecord, spread } from './rounds.ts';
import { httpBodyFor, surfaceTarget } from './surface-targets.ts';

// `npm run bench:surfaces [-- --targets http,mcp-2025,mcp-2026,a2a --rounds 3 --duration 10
//   --connections 50 --warmup 2 --cold]`
// The same read through every surface of ONE provider child (bench/provider-server.ts --audience
// all --profile demo: one grant, a token per resource), so what differs is the surface alone:
// - http: POST /v1/profile/effective {context} (as `npm run bench -- --profile small`);
// - mcp-2025: `tools/call ppx_get_effective_profile`, MCP 2025-11-25 (stateless, no initialize);
// - mcp-2026: the same call in 2026-07-28 (the envelope in `_meta`, the standard headers);
// - a2a: A2A 1.0 `SendMessage` whose data part names `get_effective_profile`.
// Every target's answer must hold the same document as the HTTP read's (claims and applied
// modifiers) before and after each load. The targets are loaded one after the other, the order
// reversed every other round (harness.ts#measure); the CPU µs per request are the provider
// child's own (/proc). Printed: per target the median CPU µs/req over the rounds, the ratio of
// each surface's CPU per request to the HTTP read's in every round and its median, and the goal of
// issue 27 item 5: each surface within 1.3× of the HTTP read. Writes bench/results/surfaces.json
// (`-cold` with --cold). BENCH_PROFILE=1 profiles the provider (pick one surface with --targets
// to profile it alone).

const here = import.meta.dirname;
const GOAL = 1.3;

/** What the read must answer whatever the surface: the PPX document's claims and modifiers. */
interface Document {
  readonly claims: unknown[];
  readonly applied_modifiers?: unknown;
}

interface Surface {
  readonly name: string;
  readonly target: (info: Record<string, string>, pid: number | undefined) => Target;
  /** One request, its document taken out of the surface's answer; and the answer's size. */
  readonly read: (target: Target, claims: number | null) => Promise<{ document: Document; bytes: number }>;
}

function mcpSurface(name: 'mcp-2025' | 'mcp-2026', generation: Generation): Surface {
  const bodyFor = bodyOf(generation);
  return {
    name,
    target: (info, pid) => surfaceTarget(name, info, pid),
    read: async (target, claims) => {
      const answer = await call(target, bodyFor(BENCH_CONTEXT), claims);
      const data = (answer.result as { structuredContent: { data: Document } }).structuredContent.data;
      return { document: data, bytes: answer.bytes };
    },
  };
}

const SURFACES: readonly Surface[] = [
  {
    name: 'http',
    target: (info, pid) => surfaceTarget('http', info, pid),
    read: async (target, claims) => {
      const text = await checked(target, claims ?? undefined);
      return { document: JSON.parse(text) as Document, bytes: Buffer.byteLength(text) };
    },
  },
  mcpSurface('mcp-2025', PROTOCOL_VERSION),
  mcpSurface('mcp-2026', MODERN),
  {
    name: 'a2a',
    target: (info, pid) => surfaceTarget('a2a', info, pid),
    read: (target, claims) => a2aCall(target, a2aBodyFor(BENCH_CONTEXT), claims),
  },
];

/** The claims and applied modifiers of a document: what every surface must answer alike. */
const sameOf = (d: Document) => ({ claims: d.claims, applied_modifiers: d.applied_modifiers });

async function main(): Promise<void> {
  const args = benchArgs({ targets: { type: 'string', default: SURFACES.map((s) => s.name).join(',') } });
  const names = String(args.extra['targets']).split(',');
  const chosen = names.map((n) => {
    const surface = SURFACES.find((s) => s.name === n);
    if (!surface) throw new Error(`--targets: no surface "${n}" (${SURFACES.map((s) => s.name).join(', ')})`);
    return surface;
  });
  // withDeadline bounds two targets' rounds: scale it to the number of targets.
  const limitArgs: BenchArgs = { ...args, rounds: args.rounds * Math.ceil(chosen.length / 2) };
  const rounds = await withDeadline('bench:surfaces', limitArgs, async (children) => {
    const child = startChild(
      'provider',
      [join(here, 'provider-server.ts'), '--audience', 'all', '--profile', 'demo'],
      { execArgv: providerExecArgv(args) },
    );
    children.push(child);
    const info = await child.ready;
    const targets = chosen.map((s) => s.target(info, child.proc.pid));
    // The reference document: the HTTP read's, whichever targets are loaded.
    const http = SURFACES[0]!;
    const reference = (await http.read(http.target(info, undefined), null)).document;
    const claims = reference.claims.length;
    const verify = async (t: Target) => {
      const surface = chosen[targets.indexOf(t)]!;
      const { document, bytes } = await surface.read(t, claims);
      try {
        deepStrictEqual(sameOf(document), sameOf(reference));
      } catch {
        throw new Error(`${t.name}: its document is not the HTTP read's`);
      }
      return bytes;
    };
    return measure('bench:surfaces', args, { bodyFor: httpBodyFor, verify }, targets);
  });

  console.log(`## One read, every surface (demo profile)\n\n${surfacesTable(rounds, args)}\n`);
  writeResults('bench:surfaces', `surfaces${args.cold ? '-cold' : ''}.json`, {
    ...machine(),
    profile: 'demo',
    targets: names.join(','),
    ...settings(args),
    ...roundsRecord(rounds, ({ latencyMean, timeouts, ...row }) => row),
    cpuRatioToHttp: cpuRatios(rounds),
  });
  if (args.profiling) summarizeProfiles(resultsDir, 25);
}

/** Per surface but HTTP: its CPU µs/req over the HTTP read's, every round, and their spread. */
function cpuRatios(rounds: readonly Round[]): Record<string, { perRound: number[]; median: number }> {
  const names = rounds[0]?.rows.map((r) => r.target) ?? [];
  const out: Record<string, { perRound: number[]; median: number }> = {};
  if (!names.includes('http')) return out;
  for (const name of names.filter((n) => n !== 'http')) {
    const perRound = rounds.map((r) => {
      const cpu = (n: string) => r.rows.find((row) => row.target === n)!.cpuPerRequest;
      return cpu(name) / cpu('http');
    });
    out[name] = { perRound, median: spread(perRound).median };
  }
  return out;
}

function surfacesTable(rounds: readonly Round[], args: BenchArgs): string {
  const names = rounds[0]?.rows.map((r) => r.target) ?? [];
  const ratios = cpuRatios(rounds);
  const head = [
    'target',
    'CPU µs/req median',
    'CPU µs/req min–max',
    '× http per round',
    '× http median',
    'req/s median',
    'p99 ms median',
    'resp bytes',
  ];
  const body = names.map((name, i) => {
    const rows = rounds.map((r) => r.rows[i]!);
    const cpu = spread(rows.map((r) => r.cpuPerRequest));
    const ratio = ratios[name];
    return [
      name,
      cpu.median.toFixed(0),
      `${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)}`,
      ratio ? ratio.perRound.map((x) => x.toFixed(2)).join(', ') : '—',
      ratio ? ratio.median.toFixed(2) : '—',
      spread(rows.map((r) => r.reqPerSec)).median.toFixed(0),
      spread(rows.map((r) => r.p99)).median.toFixed(1),
      String(rows[0]!.responseBytes),
    ];
  });
  const order = rounds.map((r, i) => `round ${i + 1}: ${r.order.join(' → ')}`).join('; ');
  const judged = Object.entries(ratios);
  const met = judged.every(([, r]) => r.median <= GOAL);
  const goal =
    judged.length === 0
      ? `goal (issue 27 item 5): each surface ≤ ${GOAL}× the HTTP read's CPU µs/req: not judged (no http target)`
      : `goal (issue 27 item 5): each surface ≤ ${GOAL}× the HTTP read's CPU µs/req (median of the rounds' ratios): ` +
        `${judged.map(([n, r]) => `${n} ${r.median.toFixed(2)}×`).join(', ')}: ${met ? 'met' : 'not met'}`;
  return [
    markdown(head, body),
    '',
    order,
    `${rounds.length} round(s) × ${args.duration} s, ${args.connections} connections${args.cold ? ', cold: every request a new context' : ''}`,
    goal,
  ].join('\n');
}

runMain('bench:surfaces', main);
