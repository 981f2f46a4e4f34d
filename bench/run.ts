import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './children.ts';
import { BENCH_BODY, BENCH_PATH, CLAIM_COUNT } from './fixtures.ts';
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
import { summarizeProfiles } from './profile-summary.ts';
import { type Round, roundsRecord, roundsTable, summarize } from './rounds.ts';

// `npm run bench [-- --profile small|large|both --rounds 3 --duration 10 --connections 50 --warmup 2 --cold]`
// Starts the provider and a bare node:http baseline as child processes, checks both answer
// correctly, then loads each in turn (never both at once: the machine has 2 cores), alternating
// the order round by round, with autocannon, and prints/saves the comparison. Two cases:
// - large: the 200-claim fixture against baseline-server.ts doing the same JSON work
//   (bench/results/latest.json, latest-cold.json with --cold);
// - small: the demo profile (~6 KB answer) against static-baseline-server.ts, which parses the
//   body and answers the provider's own answer, captured once at start-up (small.json), and
//   hono-baseline-server.ts, the same on the provider's framework (Hono), to tell the framework's
//   share of the gap from the provider's own work.
// BENCH_PROFILE=1 runs the provider child under --cpu-prof and prints its hottest functions
// afterwards. --cold gives every request a context of its own, so the provider can reuse nothing
// between requests.

const here = import.meta.dirname;
const json = { 'content-type': 'application/json' };
const bodyFor = (context: Record<string, unknown>) => JSON.stringify({ context });

/** The issue-10 goal for the small profile: at least this share of the baseline's throughput… */
const SMALL_MIN_RATIO = 0.6;
/** …with the provider's p99 under this, at 50 connections. */
const SMALL_MAX_P99_MS = 10;

function startProvider(args: BenchArgs, profile: 'large' | 'demo') {
  const argv = [join(here, 'provider-server.ts'), '--profile', profile];
  return startChild('provider', argv, { execArgv: providerExecArgv(args) });
}

const providerTarget = (info: Record<string, string>, pid?: number): Target => ({
  name: 'provider',
  pid,
  url: info['url'] + BENCH_PATH,
  headers: { ...json, authorization: `Bearer ${info['token']}` },
});

/** 200 claims, 20 modifiers, against a baseline doing the same JSON work. */
function large(args: BenchArgs): Promise<Round[]> {
  return withDeadline('bench', args, async (children) => {
    children.push(startProvider(args, 'large'), startChild('baseline', [join(here, 'baseline-server.ts')]));
    const [providerInfo, baselineInfo] = await Promise.all(children.map((c) => c.ready));
    const targets = [
      providerTarget(providerInfo!, children[0]!.proc.pid),
      { name: 'baseline', url: baselineInfo!['url'] + BENCH_PATH, headers: json, pid: children[1]!.proc.pid },
    ];
    const verify = async (t: Target) => Buffer.byteLength(await checked(t, CLAIM_COUNT));
    return measure('bench', args, { bodyFor, verify }, targets);
  });
}

/** The demo profile, against a baseline answering the provider's own answer. */
function small(args: BenchArgs): Promise<Round[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-small-'));
  return withDeadline('bench', args, async (children) => {
    const providerChild = startProvider(args, 'demo');
    children.push(providerChild);
    const provider = providerTarget(await providerChild.ready, providerChild.proc.pid);
    const answer = await checked(provider, undefined);
    const claims = (JSON.parse(answer) as { claims: unknown[] }).claims.length;
    const file = join(tmp, 'answer.json');
    writeFileSync(file, answer);
    const baselineChild = startChild('baseline', [join(here, 'static-baseline-server.ts'), file]);
    children.push(baselineChild);
    const baselineUrl = (await baselineChild.ready)['url'] + BENCH_PATH;
    const baseline: Target = {
      name: 'baseline',
      url: baselineUrl,
      headers: json,
      pid: baselineChild.proc.pid,
    };
    // The same work on the provider's framework alone (hono-baseline-server.ts): what Hono costs.
    const honoChild = startChild('hono', [join(here, 'hono-baseline-server.ts'), file]);
    children.push(honoChild);
    const hono: Target = {
      name: 'hono',
      url: (await honoChild.ready)['url'] + BENCH_PATH,
      headers: json,
      pid: honoChild.proc.pid,
    };
    const verify = async (t: Target) => {
      const text = await checked(t, claims);
      if (t !== provider && text !== answer) throw new Error(`${t.name}: not the captured answer`);
      return Buffer.byteLength(text);
    };
    return measure('bench --profile small', args, { bodyFor, verify }, [provider, baseline, hono]);
  }).finally(() => rmSync(tmp, { recursive: true, force: true }));
}

/** Whether the small case meets the goal, as a sentence (reported, never asserted). */
function goalLine(args: BenchArgs, rounds: readonly Round[]): string {
  const s = summarize(rounds);
  const p99 = s.targets[0]!.p99.median;
  const met = s.ratio.median >= SMALL_MIN_RATIO && p99 < SMALL_MAX_P99_MS;
  const at = args.connections === 50 ? '' : ` (measured at ${args.connections} connections, not 50)`;
  return (
    `goal (issue 10): ratio >= ${SMALL_MIN_RATIO} and provider p99 < ${SMALL_MAX_P99_MS} ms at 50 connections: ` +
    `median ratio ${s.ratio.median.toFixed(3)}, provider p99 median ${p99.toFixed(1)} ms: ${met ? 'met' : 'not met'}${at}`
  );
}

async function main(): Promise<void> {
  const args = benchArgs({ profile: { type: 'string', default: 'both' } });
  const which = args.extra['profile'];
  if (which !== 'small' && which !== 'large' && which !== 'both')
    throw new Error(`--profile must be small, large or both, not ${String(which)}`);
  const cold = args.cold ? '-cold' : '';
  if (which !== 'small') {
    const rounds = await large(args);
    console.log(`## large: 200 claims, 20 modifiers\n\n${roundsTable(rounds, args.cold)}\n`);
    writeResults('bench', `latest${cold}.json`, {
      ...machine(),
      profile: 'large',
      path: BENCH_PATH,
      body: JSON.parse(BENCH_BODY),
      ...settings(args),
      ...roundsRecord(rounds),
    });
  }
  if (which !== 'large') {
    const rounds = await small(args);
    const title = '## small: the demo profile, baseline answering the captured document';
    console.log(`${title}\n\n${roundsTable(rounds, args.cold, goalLine(args, rounds))}\n`);
    writeResults('bench', `small${cold}.json`, {
      ...machine(),
      profile: 'small',
      path: BENCH_PATH,
      body: JSON.parse(BENCH_BODY),
      ...settings(args),
      ...roundsRecord(rounds),
    });
  }
  if (args.profiling) summarizeProfiles(resultsDir, 25);
}

runMain('bench', main);
