/**
 * How long this instance's transactions waited for the store's locks, as PostgreSQL measured it
 * (the statements that take them report the wait: locks.ts#beginStatement): what bench:stores
 * reports beside request time (issue 23's figure: at most 5 % of it).
 */
export class LockWaits {
  #count = 0;
  #waitedUs = 0;

  /** Adds what a lock-taking statement reported (its `waited_us` column). */
  add(
    result:
      | { rows?: readonly Record<string, unknown>[] }
      | readonly { rows?: readonly Record<string, unknown>[] }[],
  ): void {
    for (const r of Array.isArray(result) ? result : [result]) {
      const waited = r.rows?.[0]?.['waited_us'];
      if (waited === undefined) continue;
      this.#count++;
      this.#waitedUs += Number(waited);
    }
  }

  snapshot(): { readonly locks: number; readonly waitedMs: number } {
    return { locks: this.#count, waitedMs: this.#waitedUs / 1000 };
  }
}
