import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

/** Events removed per transaction: small enough that requests get in between (one write lock each). */
const PRUNE_CHUNK = 1000;
const DAY_MS = 86_400_000;

export interface PruneReport {
  /** Events from before this time were removed (RFC 3339). */
  readonly before: string;
  readonly events: number;
  /** Lists of claim keys no remaining event named. */
  readonly keySets: number;
  /** Refresh tokens that could never be exchanged again (expired, or of a revoked family). */
  readonly refreshTokens: number;
}

/**
 * Applies an audit retention of `retentionDays` (docs/audit.md): removes every event older than
 * that, oldest first, in chunks of their own transactions so that the provider keeps answering
 * meanwhile; then the key lists left unused and the spent refresh tokens.
 */
export async function pruneAuditLog(deps: Deps, retentionDays: number): Promise<PruneReport> {
  const now = deps.clock();
  const before = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
  let events = 0;
  for (;;) {
    const removed = await inTransaction(deps, (tx) => tx.store.pruneAudit(before, PRUNE_CHUNK));
    events += removed;
    if (removed < PRUNE_CHUNK) break;
    await nextTurn();
  }
  // Reads the whole log, so only when pruning can have left a list unused.
  const keySets = events > 0 ? await inTransaction(deps, (tx) => tx.store.pruneAuditKeySets()) : 0;
  const refreshTokens = await inTransaction(deps, (tx) => tx.store.pruneRefreshTokens(now.toISOString()));
  return { before, events, keySets, refreshTokens };
}

/** How often a running provider applies its retention (and once when it starts). */
const RETENTION_EVERY_MS = 6 * 3_600_000;

/**
 * Applies the retention now and every six hours while the provider runs; `stop` ends it. A failed
 * run is reported and the next one tries again: pruning late never loses anything.
 */
export function startAuditRetention(
  deps: Deps,
  retentionDays: number,
  log: (message: string) => void,
): { stop(): void } {
  const run = () =>
    pruneAuditLog(deps, retentionDays).then(
      (r) => {
        if (r.events + r.refreshTokens > 0) {
          log(
            `audit retention (${retentionDays} days): removed ${r.events} events from before ${r.before}, ` +
              `${r.keySets} unused key lists, ${r.refreshTokens} spent refresh tokens`,
          );
        }
      },
      (e: unknown) =>
        log(`audit retention failed, will try again: ${e instanceof Error ? e.message : String(e)}`),
    );
  void run();
  const timer = setInterval(() => void run(), RETENTION_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
