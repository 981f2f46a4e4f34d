/**
 * A clock a test sets (`deps.clock`): it stands still until told to move, so a test steps
 * through rate-limit windows, expiries and decay without waiting for time to pass.
 */
export interface TestClock {
  readonly clock: () => Date;
  /** Now, in epoch milliseconds. */
  readonly now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
  /** Moves to `offsetMs` into the next window of `windowMs` (windows are aligned to the epoch). */
  toNextWindow(windowMs: number, offsetMs?: number): void;
}

export function testClock(startMs = Date.now()): TestClock {
  let now = startMs;
  return {
    clock: () => new Date(now),
    now: () => now,
    set(ms) {
      now = ms;
    },
    advance(ms) {
      now += ms;
    },
    toNextWindow(windowMs, offsetMs = 1000) {
      now = now - (now % windowMs) + windowMs + offsetMs;
    },
  };
}

/**
 * Resolves once the wall clock reads a later millisecond than when called: for times a database
 * or the provider takes from the real clock (ms resolution), which must differ from one write to
 * the next. It waits for that tick itself, a turn of the event loop at a time, not a fixed while.
 */
export async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((resolve) => setImmediate(resolve));
}
