// Whether the server's memory stayed bounded over the run. RSS is sampled a few times a second
// with the number of inputs done; the verdict compares the run's last fifth with the fifth just
// after warm-up, by medians (a garbage collection's sawtooth moves a median little, a leak moves
// it steadily).
//
// The rule: warm-up is the first 20% of the inputs (JIT, caches and pools filling). W is the
// median RSS while inputs 20–40% run, E the median over the last 20%. The run fails when
// E > W + max(64 MiB, W / 4). A leak of 1 KB per request grows a million-input run by ~0.5 GB
// between the two windows, far past the bound; the bound is wide enough that a heap settling
// at a new size does not fail a short run.

export interface MemorySample {
  /** Inputs done when the sample was taken. */
  readonly done: number;
  readonly rss: number;
}

export interface MemoryVerdict {
  readonly start: number;
  /** W: the median after warm-up. */
  readonly warm: number;
  /** E: the median at the end. */
  readonly end: number;
  readonly peak: number;
  readonly allowed: number;
  /** Least-squares growth after warm-up, in bytes per 100,000 inputs. */
  readonly slopePer100k: number;
  readonly ok: boolean;
  readonly samples: number;
}

const MiB = 1024 * 1024;

function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function window(samples: readonly MemorySample[], from: number, to: number): number[] {
  const inside = samples.filter((s) => s.done > from && s.done <= to).map((s) => s.rss);
  if (inside.length > 0) return inside;
  // A run too short for a sample in the window: the nearest one.
  const mid = (from + to) / 2;
  const nearest = [...samples].sort((a, b) => Math.abs(a.done - mid) - Math.abs(b.done - mid))[0];
  return nearest ? [nearest.rss] : [];
}

export function memoryVerdict(samples: readonly MemorySample[], total: number): MemoryVerdict {
  const warm = median(window(samples, 0.2 * total, 0.4 * total));
  const end = median(window(samples, 0.8 * total, total));
  const allowed = warm + Math.max(64 * MiB, warm / 4);
  const after = samples.filter((s) => s.done > 0.2 * total);
  return {
    start: samples[0]?.rss ?? Number.NaN,
    warm,
    end,
    peak: Math.max(...samples.map((s) => s.rss)),
    allowed,
    slopePer100k: slope(after) * 100_000,
    ok: !(end > allowed),
    samples: samples.length,
  };
}

function slope(samples: readonly MemorySample[]): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.done, 0) / n;
  const my = samples.reduce((a, s) => a + s.rss, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.done - mx) * (s.rss - my);
    den += (s.done - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
