// The rate-limit port: how many requests a caller made in the current window. Every surface
// counts through it (surfaces/shared/rate-limit.ts), with the time from `deps.clock`, so tests set
// the time instead of waiting for a window to pass. The in-memory counter below is one
// instance's; a shared store (PostgreSQL) implements the same interface to count across
// instances (docs/deploy.md will say which a deployment needs).

/** A named limit: at most `limit` requests per fixed window of `windowSeconds`, per key. */
export interface RateLimit {
  readonly name: string;
  /** 0 turns the limit off. */
  readonly limit: number;
  readonly windowSeconds: number;
}

/** One request counted: whether it may go on, and what the RateLimit-* headers say. */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window ends, at least 1. */
  readonly resetSeconds: number;
  readonly windowSeconds: number;
}

export interface RateCounter {
  /**
   * Counts one request of `key` against `limit` in the window that holds `now`; windows are
   * aligned to the clock (a window of 60 s starts at each whole minute). Never throws for a
   * caller's reasons; a counter that cannot count (a store down) rejects.
   */
  take(limit: RateLimit, key: string, now: Date): Promise<RateDecision>;
}

/** The start of the clock-aligned fixed window of `limit` that holds `nowMs`. */
export function windowStart(limit: RateLimit, nowMs: number): number {
  return nowMs - (nowMs % (limit.windowSeconds * 1000));
}

/** The decision for the `used`-th request of a key in the window starting at `start`. */
export function decisionOf(limit: RateLimit, used: number, start: number, nowMs: number): RateDecision {
  const windowMs = limit.windowSeconds * 1000;
  return {
    allowed: used <= limit.limit,
    limit: limit.limit,
    remaining: Math.max(0, limit.limit - used),
    resetSeconds: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)),
    windowSeconds: limit.windowSeconds,
  };
}

/**
 * Fixed windows kept in this process's memory: safe to lose (a restart only resets the
 * windows), and bounded by the keys seen in one window of each limit.
 */
export class MemoryRateCounter implements RateCounter {
  readonly #windows = new Map<string, { start: number; counts: Map<string, number> }>();

  async take(limit: RateLimit, key: string, now: Date): Promise<RateDecision> {
    const nowMs = now.getTime();
    const start = windowStart(limit, nowMs);
    let window = this.#windows.get(limit.name);
    if (window === undefined || window.start !== start) {
      window = { start, counts: new Map() };
      this.#windows.set(limit.name, window);
    }
    const used = (window.counts.get(key) ?? 0) + 1;
    window.counts.set(key, used);
    return decisionOf(limit, used, start, nowMs);
  }
}
