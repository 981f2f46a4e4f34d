import type pg from 'pg';
import {
  decisionOf,
  type RateCounter,
  type RateDecision,
  type RateLimit,
  windowStart,
} from '../rate-limits.ts';

// Rate limits counted in PostgreSQL (issue 14, item 2): every instance on the database counts
// into the same fixed windows (migration 0002, an UNLOGGED table), so a client gets its budget
// once, not once per instance. One upsert per counted request; windows older than an hour are
// removed now and then by whichever instance counts. Same windows and answers as the in-memory
// counter (store/rate-limits.ts).

const PRUNE_EVERY = 500;
const KEEP_MS = 3_600_000;

export class PostgresRateCounter implements RateCounter {
  readonly #pool: pg.Pool;
  #counted = 0;
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async take(limit: RateLimit, key: string, now: Date): Promise<RateDecision> {
    const nowMs = now.getTime();
    const start = windowStart(limit, nowMs);
    const { rows } = await this.#pool.query<{ count: number }>(
      `INSERT INTO rate_windows (name, key, window_start, count) VALUES ($1, $2, $3, 1)
       ON CONFLICT (name, key, window_start) DO UPDATE SET count = rate_windows.count + 1
       RETURNING count`,
      [limit.name, key, start],
    );
    if (++this.#counted % PRUNE_EVERY === 0) {
      this.#pool
        .query('DELETE FROM rate_windows WHERE window_start < $1', [nowMs - KEEP_MS])
        .catch(() => undefined);
    }
    return decisionOf(limit, Number(rows[0]?.count ?? 1), start, nowMs);
  }
}
