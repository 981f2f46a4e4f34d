import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machine, resultsDir, runMain, writeResults } from './harness.ts';
import type { Load } from './refresh-load.ts';
import { markdown, spread } from './rounds.ts';

// `npm run bench:figures [-- --rounds 5 --duration 5]`: every figure of issue 27 in one run, each
// against its baseline, and whether its goal is met. It runs the benches that measure them, one
// after the other, as a person would type them (their own tables print as they go), then reads
// their results files and prints one table:
// - the small read at 50 connections: `bench --profile small` (ratio to the bare server, p99);
// - the small read at 1 connection: the same with `--connections 1 --warmup 20`;
// - refresh rotations per CPU-second on SQLite: `bench:refresh` (3 rounds of 4 s);
// - MCP and A2A CPU a read against the HTTP read's: `bench:surfaces` (the same rounds as the small reads).
// Writes bench/results/figures.json. Takes about 7 minutes with the defaults. Goals are
// reported, never asserted: the machine is shared, and its speed moves by up to half in minutes.

const here = import.meta.dirname;

interface Figure {
  readonly figure: string;
  readonly provider: string;
  readonly baseline: string;
  readonly result: string;
  readonly goal: string;
  readonly met: boolean;
}

interface TargetSummary {
  readonly target: string;
  readonly reqPerSec: { readonly median: number };
  readonly p99: { readonly median: number };
  readonly cpuPerRequest: { readonly median: number };
}

/** Runs one bench script with its arguments, its output shown; throws when it fails. */
function runBench(script: string, args: readonly string[]): void {
  console.error(`\nbench:figures: node bench/${script} ${args.join(' ')}`);
  const done = spawnSync(process.execPath, [join(here, script), ...args], { stdio: 'inherit' });
  if (done.status !== 0) throw new Error(`bench/${script} ended with ${done.status ?? done.signal}`);
}

function results<T>(file: string): T {
  return JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as T;
}

const µs = (n: number) => `${n.toFixed(1)} µs`;

/** The small read at `connections`, from bench/run.ts's small.json. */
function smallRead(connections: number, rounds: string, duration: string): Figure[] {
  const extra = connections === 1 ? ['--connections', '1', '--warmup', '20'] : [];
  runBench('run.ts', ['--profile', 'small', '--rounds', rounds, '--duration', duration, ...extra]);
  const file = results<{
    summary: TargetSummary[];
    throughputRatio: { median: number; min: number; max: number };
  }>('small.json');
  const of = (name: string) => file.summary.find((s) => s.target === name)!;
  const provider = of('provider');
  const baseline = of('baseline');
  const ratio = file.throughputRatio;
  const side = (s: TargetSummary) => `${s.reqPerSec.median.toFixed(0)} req/s, ${µs(s.cpuPerRequest.median)}`;
  const goal = connections === 1 ? 0.5 : 0.6;
  const figures: Figure[] = [
    {
      figure: `small read vs the bare server, ${connections} connection${connections === 1 ? '' : 's'}`,
      provider: side(provider),
      baseline: side(baseline),
      result: `${ratio.median.toFixed(3)} (${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)})`,
      goal: `≥ ${goal}`,
      met: ratio.median >= goal,
    },
  ];
  if (connections !== 1) {
    figures.push({
      figure: 'small read p99, 50 connections',
      provider: `${provider.p99.median} ms`,
      baseline: `${baseline.p99.median} ms`,
      result: `${provider.p99.median} ms`,
      goal: '≤ 10 ms',
      met: provider.p99.median <= 10,
    });
  }
  return figures;
}

/** Refresh rotations per CPU-second, from bench/refresh.ts's refresh-sqlite.json. */
function refresh(): Figure {
  runBench('refresh.ts', ['--connections', '32', '--rounds', '3', '--duration', '4']);
  const file = results<{ rounds: { provider: Load; baseline: Load }[] }>('refresh-sqlite.json');
  const perCpuSecond = (l: Load) => (l.rotations / l.cpuMicros) * 1e6;
  const provider = spread(file.rounds.map((r) => perCpuSecond(r.provider))).median;
  const baseline = spread(file.rounds.map((r) => perCpuSecond(r.baseline))).median;
  const cpu = (pick: (r: { provider: Load; baseline: Load }) => Load) =>
    spread(file.rounds.map((r) => pick(r).cpuMicros / pick(r).rotations)).median;
  return {
    figure: 'refresh rotations per CPU-second (SQLite)',
    provider: `${provider.toFixed(0)} (${µs(cpu((r) => r.provider))} a rotation)`,
    baseline: `${baseline.toFixed(0)} (the bare token endpoint, ${µs(cpu((r) => r.baseline))})`,
    result: provider.toFixed(0),
    goal: '≥ 4,000',
    met: provider >= 4000,
  };
}

/**
 * MCP and A2A CPU a read against the HTTP read's, from bench/surfaces.ts's surfaces.json: as many
 * rounds as the small reads. With 3 rounds of 4 s one round's ratio swung from 1.01 to 1.42 while
 * the others were at 1.2–1.3, and the median of three fell on either side of the goal.
 */
function surfaces(rounds: string, duration: string): Figure[] {
  runBench('surfaces.ts', ['--rounds', rounds, '--duration', duration]);
  const file = results<{ summary: TargetSummary[]; cpuRatioToHttp: Record<string, { median: number }> }>(
    'surfaces.json',
  );
  const cpu = (name: string) => file.summary.find((s) => s.target === name)!.cpuPerRequest.median;
  return Object.entries(file.cpuRatioToHttp).map(([name, ratio]) => ({
    figure: `${name} CPU a read vs the HTTP read`,
    provider: µs(cpu(name)),
    baseline: `HTTP ${µs(cpu('http'))}`,
    // Three digits: a median of 1.3027 is not met, and "1.30×" would not say why.
    result: `${ratio.median.toFixed(3)}×`,
    goal: '≤ 1.3×',
    met: ratio.median <= 1.3,
  }));
}

runMain('bench:figures', async () => {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '5' }, duration: { type: 'string', default: '5' } },
  });
  const rounds = String(values.rounds);
  const duration = String(values.duration);
  const started = new Date().toISOString();
  const figures = [
    ...smallRead(50, rounds, duration),
    ...smallRead(1, rounds, duration),
    refresh(),
    ...surfaces(rounds, duration),
  ];
  console.log(
    `\n## Issue 27, every figure (${started} to ${new Date().toISOString()})\n\n${markdown(
      ['figure', 'provider', 'baseline', 'result', 'goal', 'met'],
      figures.map((f) => [f.figure, f.provider, f.baseline, f.result, f.goal, f.met ? 'met' : 'NOT met']),
    )}\n\nMet ${figures.filter((f) => f.met).length} of ${figures.length}. Each row is the median of its bench's rounds; ` +
      'compare within one run: the machine is shared.',
  );
  writeResults('bench:figures', 'figures.json', { ...machine(), started, figures });
});
