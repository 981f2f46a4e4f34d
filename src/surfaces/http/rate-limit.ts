/**
 * A fixed-window request counter per caller, advertised with the RateLimit-* headers of
 * draft-ietf-httpapi-ratelimit-headers. It lives in memory on purpose: it is safe to lose
 * (a restart only resets the windows), and each instance limiting on its own is acceptable.
 */
export class RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  #windowStart = 0;
  #counts = new Map<string, number>();

  constructor(limit: number, windowSeconds: number) {
    this.#limit = limit;
    this.#windowMs = windowSeconds * 1000;
  }

  get enabled(): boolean {
    return this.#limit > 0;
  }

  /** Counts one request for `key`; returns whether it is allowed and the headers to send. */
  take(key: string, nowMs: number): { allowed: boolean; headers: [string, string][] } {
    if (nowMs - this.#windowStart >= this.#windowMs) {
      this.#windowStart = nowMs - (nowMs % this.#windowMs);
      this.#counts = new Map();
    }
    const used = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, used);
    const reset = Math.max(1, Math.ceil((this.#windowStart + this.#windowMs - nowMs) / 1000));
    const remaining = Math.max(0, this.#limit - used);
    const headers: [string, string][] = [
      ['RateLimit-Policy', `${this.#limit};w=${this.#windowMs / 1000}`],
      ['RateLimit-Limit', String(this.#limit)],
      ['RateLimit-Remaining', String(remaining)],
      ['RateLimit-Reset', String(reset)],
    ];
    if (used > this.#limit) headers.push(['Retry-After', String(reset)]);
    return { allowed: used <= this.#limit, headers };
  }
}
