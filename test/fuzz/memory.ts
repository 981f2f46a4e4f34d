// Whether the server's memory stayed bounded over the run. Two measures are sampled with the
// number of inputs done: the process's RSS (/proc/PID/status, five times a second) and the V8
// heap live after each full collection (the server runs with --trace-gc). Each is judged by
// comparing the run's last fifth with the fifth just after warm-up (inputs 20–40%; warm-up is
// the first 20%: JIT, caches and pools filling):
//
// - live heap: the smallest of the full collections in each window (one taken amid large bodies
//   in flight says little; the campaign adds one made after the last input). Fails when the
//   end's exceeds the warm one by more than max(32 MiB, 25%).
// - RSS: the median of each window. Fails when the end's exceeds the warm one by more than
//   max(128 MiB, 50%). RSS is the noisier measure: it holds what the allocator keeps of the
//   multi-megabyte bodies the fuzz sends (they come and go with the mix of inputs), and the
//   database's pages.
//
// A leak of 1 KB per request grows a million-input run by ~0.5 GB between the windows, past
// both bounds; a heap settling at a new size, or the allocator keeping a few large buffers, does
// not fail a short run.

export interface MemorySample {
  /** Inputs done when the sample was taken. */
  readonly done: number;
  readonly bytes: number;
}

export interface WindowVerdict {
  readonly start: number;
  /** The warm window's value (W). */
  readonly warm: number;
  /** The end window's value (E). */
  readonly end: number;
  readonly peak: number;
  /** The most E may be. */
  readonly allowed: number;
  /** Least-squares growth after warm-up, in bytes per 100,000 inputs. */
  readonly slopePer100k: number;
  readonly samples: number;
  readonly ok: boolean;
}

export interface MemoryVerdict {
  readonly rss: WindowVerdict;
  readonly heap?: WindowVerdict;
  readonly ok: boolean;
}

const MiB = 1024 * 1024;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function window(samples: readonly MemorySample[], from: number, to: number): number[] {
  const inside = samples.filter((s) => s.done > from && s.done <= to).map((s) => s.bytes);
  if (inside.length > 0) return inside;
  // A run too short for a sample in the window: the nearest one.
  const mid = (from + to) / 2;
  const nearest = [...samples].sort((a, b) => Math.abs(a.done - mid) - Math.abs(b.done - mid))[0];
  return nearest ? [nearest.bytes] : [];
}

function judgeWindows(
  samples: readonly MemorySample[],
  total: number,
  summary: (xs: readonly number[]) => number,
  slack: (warm: number) => number,
): WindowVerdict {
  const warm = summary(window(samples, 0.2 * total, 0.4 * total));
  const end = summary(window(samples, 0.8 * total, total));
  const allowed = warm + slack(warm);
  return {
    start: samples[0]?.bytes ?? Number.NaN,
    warm,
    end,
    peak: samples.reduce((m, s) => Math.max(m, s.bytes), 0),
    allowed,
    slopePer100k: slope(samples.filter((s) => s.done > 0.2 * total)) * 100_000,
    samples: samples.length,
    ok: !(end > allowed),
  };
}

export function memoryVerdict(
  rss: readonly MemorySample[],
  heap: readonly MemorySample[],
  total: number,
): MemoryVerdict {
  const r = judgeWindows(rss, total, median, (w) => Math.max(128 * MiB, w / 2));
  const h =
    heap.length > 0
      ? judgeWindows(
          heap,
          total,
          (xs) => Math.min(...xs),
          (w) => Math.max(32 * MiB, w / 4),
        )
      : undefined;
  return { rss: r, ...(h ? { heap: h } : {}), ok: r.ok && (h?.ok ?? true) };
}

function slope(samples: readonly MemorySample[]): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.done, 0) / n;
  const my = samples.reduce((a, s) => a + s.bytes, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.done - mx) * (s.bytes - my);
    den += (s.done - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
