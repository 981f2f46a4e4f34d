import { readFileSync } from 'node:fs';
import type { Outcome } from './soak-mix.ts';

// The soak's figures: per interval the requests, errors, throughput and latency of what was
// answered in it, the server's memory (RSS from /proc, the V8 heap from its own /metrics) and
// the database's size; at the end whether memory grew after the warm-up, and by how much the
// database grows per 1,000 writes.

const MB = 1024 * 1024;

/** The p-th percentile (nearest rank) of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The server's resident set (VmRSS, /proc/PID/status), in bytes; undefined once it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    const kb = Number(line?.split(/\s+/)[1]);
    return Number.isFinite(kb) ? kb * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The V8 heap the server reports on /metrics (prom-client's default process metrics). */
export async function heapOf(
  base: string,
): Promise<{ used: number; total: number; external: number } | undefined> {
  try {
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]);
    const used = value('ppx_process_nodejs_heap_size_used_bytes');
    const total = value('ppx_process_nodejs_heap_size_total_bytes');
    const external = value('ppx_process_nodejs_external_memory_bytes');
    return Number.isFinite(used) && Number.isFinite(total) ? { used, total, external } : undefined;
  } catch {
    return undefined;
  }
}

export interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  /** Memory outside the V8 heap that V8 knows of (buffers): what is not in either is native. */
  readonly external: number;
}

export interface Row {
  /** Seconds since the load started, at the end of the interval. */
  readonly elapsed: number;
  readonly requests: number;
  readonly errors: number;
  readonly writes: number;
  /** Answered requests per second over the interval. */
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** MB: the V8 heap right after a full GC at the interval's end (soak-gc.ts), used and its size. */
  readonly heapAfterGcMb: number;
  readonly heapSizeAfterGcMb: number;
  /** MB: V8's external memory at the interval's last sample. */
  readonly externalMb: number;
  /** MB: the RSS right after that GC, and the highest sampled in the interval; the heap's lowest and highest sample. */
  readonly rssMb: number;
  readonly rssMaxMb: number;
  readonly heapFloorMb: number;
  readonly heapMaxMb: number;
  readonly dbMb: number;
  /** Requests in flight when the interval ended. */
  readonly inFlight: number;
}

/** Collects one interval's outcomes and memory samples. */
export class Interval {
  readonly #ms: number[] = [];
  #errors = 0;
  #writes = 0;
  readonly #memory: MemorySample[] = [];

  add(o: Outcome): void {
    this.#ms.push(o.ms);
    if (!o.ok) this.#errors++;
    if (o.ok && o.writes) this.#writes++;
  }

  sample(m: MemorySample): void {
    this.#memory.push(m);
  }

  row(
    elapsed: number,
    seconds: number,
    dbBytes: number,
    inFlight: number,
    afterGc: { used: number; total: number; rss: number },
  ): Row {
    const sorted = [...this.#ms].sort((a, b) => a - b);
    const rss = this.#memory.map((m) => m.rss);
    const heap = this.#memory.map((m) => m.heapUsed);
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      elapsed: Math.round(elapsed),
      requests: this.#ms.length,
      errors: this.#errors,
      writes: this.#writes,
      rps: round(this.#ms.length / seconds),
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      heapAfterGcMb: round(afterGc.used / MB),
      heapSizeAfterGcMb: round(afterGc.total / MB),
      externalMb: round((this.#memory.at(-1)?.external ?? Number.NaN) / MB),
      rssMb: round(afterGc.rss / MB),
      rssMaxMb: round(Math.max(...rss) / MB),
      heapFloorMb: round(Math.min(...heap) / MB),
      heapMaxMb: round(Math.max(...heap) / MB),
      dbMb: round(dbBytes / MB),
      inFlight,
    };
  }
}

/** Least-squares slope of y over x. */
function slope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

export interface Growth {
  readonly warmupIntervals: number;
  /** MB per minute over the intervals after the warm-up (least squares). */
  readonly heapAfterGcSlopeMbPerMin: number;
  readonly rssSlopeMbPerMin: number;
  /** MB, first interval after the warm-up → last interval. */
  readonly heapAfterGcFrom: number;
  readonly heapAfterGcTo: number;
  readonly rssFrom: number;
  readonly rssTo: number;
  /** What the slopes add up to over the measured span, against the allowance below. */
  readonly heapGrowthMb: number;
  readonly rssGrowthMb: number;
  readonly verdict: string;
}

/**
 * Growth after the warm-up, from the heap right after a full GC (what the process keeps) and
 * the RSS (which follows it, with V8's and the allocator's slack). Verdict: no growth when
 * neither line climbs, over the span measured, more than 10 % of where it started after the
 * warm-up (and at least 2 MB for the heap, 16 MB for the RSS: what the allocator keeps moves by
 * that much on its own).
 */
export function growthAfter(rows: readonly Row[], warmupIntervals: number): Growth {
  const measured = rows.slice(warmupIntervals);
  const first = measured[0];
  const last = measured.at(-1);
  const heapSlope = slope(measured.map((r) => [r.elapsed / 60, r.heapAfterGcMb]));
  const rssSlope = slope(measured.map((r) => [r.elapsed / 60, r.rssMb]));
  const spanMin = first && last ? (last.elapsed - first.elapsed) / 60 : 0;
  const heapGrowth = heapSlope * spanMin;
  const rssGrowth = rssSlope * spanMin;
  const round = (x: number) => Math.round(x * 100) / 100;
  let verdict: string;
  if (!first || measured.length < 3) verdict = 'too short to tell (fewer than 3 intervals after the warm-up)';
  else {
    const heapOk = heapGrowth <= Math.max(2, 0.1 * first.heapAfterGcMb);
    const rssOk = rssGrowth <= Math.max(16, 0.1 * first.rssMb);
    const what = [heapOk ? '' : 'heap after GC', rssOk ? '' : 'RSS'].filter((x) => x !== '').join(', ');
    verdict = heapOk && rssOk ? 'no growth after the warm-up' : `grows after the warm-up (${what})`;
  }
  return {
    warmupIntervals,
    heapAfterGcSlopeMbPerMin: round(heapSlope),
    rssSlopeMbPerMin: round(rssSlope),
    heapAfterGcFrom: first?.heapAfterGcMb ?? Number.NaN,
    heapAfterGcTo: last?.heapAfterGcMb ?? Number.NaN,
    rssFrom: first?.rssMb ?? Number.NaN,
    rssTo: last?.rssMb ?? Number.NaN,
    heapGrowthMb: round(heapGrowth),
    rssGrowthMb: round(rssGrowth),
    verdict,
  };
}
