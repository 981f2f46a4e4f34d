import type { Row } from './harness.ts';

// What a bench of several rounds reports: per target the median, min and max of its req/s and
// p99 over the rounds, and the throughput ratio of the first target over the second in every
// round, with its median and spread. Rounds alternate the order of the targets (harness.ts).

/** One round: the targets' rows in the order the targets were given, and the order they ran in. */
export interface Round {
  readonly order: readonly string[];
  readonly rows: readonly Row[];
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median (the mean of the middle two for an even count), min and max; NaN for no values. */
export function spread(xs: readonly number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0] ?? Number.NaN, max: s.at(-1) ?? Number.NaN };
}

export interface TargetSummary {
  readonly target: string;
  readonly reqPerSec: Spread;
  readonly p50: Spread;
  readonly p99: Spread;
  readonly cpuPerRequest: Spread;
  readonly databaseCpuPerRequest: Spread;
  readonly lockWaitShare: Spread;
  readonly non2xx: number;
  readonly responseBytes: number;
}

export interface Summary {
  readonly targets: readonly TargetSummary[];
  /** First target's req/s over the second's, one per round (NaN with one target). */
  readonly ratios: readonly number[];
  readonly ratio: Spread;
  /** In how many rounds the first target answered more requests a second than the second. */
  readonly firstAhead: number;
  /** First target's CPU µs per request over the second's, per round where both were measured. */
  readonly cpuRatio: Spread;
}

export function summarize(rounds: readonly Round[]): Summary {
  const names = rounds[0]?.rows.map((r) => r.target) ?? [];
  const targets = names.map((target, i) => {
    const rows = rounds.map((r) => r.rows[i]!);
    return {
      target,
      reqPerSec: spread(rows.map((r) => r.reqPerSec)),
      p50: spread(rows.map((r) => r.p50)),
      p99: spread(rows.map((r) => r.p99)),
      cpuPerRequest: spread(rows.map((r) => r.cpuPerRequest).filter((x) => Number.isFinite(x))),
      databaseCpuPerRequest: spread(
        rows.map((r) => r.databaseCpuPerRequest).filter((x) => Number.isFinite(x)),
      ),
      lockWaitShare: spread(rows.map((r) => r.lockWaitShare).filter((x) => Number.isFinite(x))),
      non2xx: rows.reduce((n, r) => n + r.non2xx, 0),
      responseBytes: rows[0]!.responseBytes,
    };
  });
  // One target alone (bench:surfaces --targets one) has no ratio.
  const ratios = rounds.map((r) => (r.rows[1] ? r.rows[0]!.reqPerSec / r.rows[1].reqPerSec : Number.NaN));
  // Paired by round, as the throughput ratios are: the machine's moods hit both targets of a round.
  const cpuRatios = rounds
    .map((r) => (r.rows[1] ? r.rows[0]!.cpuPerRequest / r.rows[1].cpuPerRequest : Number.NaN))
    .filter((x) => Number.isFinite(x));
  return {
    targets,
    ratios,
    ratio: spread(ratios),
    firstAhead: ratios.filter((x) => x > 1).length,
    cpuRatio: spread(cpuRatios),
  };
}

/** A markdown table: a header row, a rule, the rows; columns padded to their widest cell. */
export function markdown(head: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

const range = (s: Spread, digits: number) => `${s.min.toFixed(digits)}–${s.max.toFixed(digits)}`;

/**
 * The per-target table (median and min–max of req/s and p99, median p50, over the rounds), the per-round
 * ratios of the first target over the second, their median and spread, then `note` if any.
 */
export function roundsTable(rounds: readonly Round[], cold: boolean, note?: string): string {
  const s = summarize(rounds);
  const [first, second] = s.targets.map((t) => t.target);
  const head = [
    'target',
    'req/s median',
    'req/s min–max',
    'p50 ms median',
    'p99 ms median',
    'p99 ms min–max',
    'CPU µs/req median',
    'resp bytes',
  ];
  const body = s.targets.map((t) => [
    t.target,
    t.reqPerSec.median.toFixed(0),
    range(t.reqPerSec, 0),
    t.p50.median.toFixed(1),
    t.p99.median.toFixed(1),
    range(t.p99, 1),
    Number.isFinite(t.cpuPerRequest.median) ? t.cpuPerRequest.median.toFixed(1) : 'n/a',
    String(t.responseBytes),
  ]);
  const perRound = rounds.map((r, i) => `${s.ratios[i]!.toFixed(3)} (${r.order.join(' then ')})`).join(', ');
  return [
    markdown(head, body),
    '',
    `throughput ratio ${first}/${second} per round: ${perRound}`,
    `ratio median ${s.ratio.median.toFixed(3)}, spread ${range(s.ratio, 3)} over ${rounds.length} round(s)` +
      (cold ? ' — cold: every request a new context' : ''),
    ...(s.targets.length > 1
      ? [
          `${first} ahead in ${s.firstAhead} of ${rounds.length} round(s); CPU µs/req ${first}/${second} per round: median ` +
            (Number.isFinite(s.cpuRatio.median)
              ? `${s.cpuRatio.median.toFixed(3)}, spread ${range(s.cpuRatio, 3)}`
              : 'n/a'),
        ]
      : []),
    ...(note ? [note] : []),
  ].join('\n');
}

/**
 * What a results file records of the rounds: every round's rows, and the summary. The order is
 * one string ("provider then baseline"): the files must stay as the formatter would write them
 * (`npm run lint` checks bench/), and it puts a short array on one line, as JSON.stringify does not.
 */
export function roundsRecord(rounds: readonly Round[], row: (r: Row) => object = (r) => r) {
  const s = summarize(rounds);
  return {
    rounds: rounds.map((r, i) => ({
      order: r.order.join(' then '),
      results: r.rows.map(row),
      throughputRatio: s.ratios[i],
    })),
    summary: s.targets,
    throughputRatio: s.ratio,
  };
}
