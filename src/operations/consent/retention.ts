import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Deps, TxDeps } from '../deps.ts';
import { UNUSED_CLIENT_HOURS } from '../oauth/register.ts';
import { inTransaction } from '../transaction.ts';

// What the consent side keeps, and for how long (issue 22 items 10 and 12; docs/consent-flow.md
// "Pending requests", docs/oauth.md "Registration"). A consent request is dead once expired (15
// minutes); it is kept a day longer so that an authorization code presented again soon after
// still finds its exchanged request and ends the grant (RFC 6749 §4.1.2), then removed. A
// self-registered client that got no grant within UNUSED_CLIENT_HOURS is removed: open
// registration must not grow without end.

const HOUR_MS = 3_600_000;
/** How long an expired consent request is kept. */
const EXPIRED_REQUEST_HOURS = 24;
/** Rows removed per transaction: small enough that requests get in between (one write lock each). */
const PRUNE_CHUNK = 1000;

export interface ConsentPruneReport {
  readonly grantRequests: number;
  readonly clients: number;
}

/** Removes the expired consent requests and the unused self-registered clients, in chunks. */
export async function pruneConsentData(deps: Deps): Promise<ConsentPruneReport> {
  const now = deps.clock().getTime();
  const expiredBefore = new Date(now - EXPIRED_REQUEST_HOURS * HOUR_MS).toISOString();
  const createdBefore = new Date(now - UNUSED_CLIENT_HOURS * HOUR_MS).toISOString();
  // Requests first: a client whose last request just went is then unused.
  const grantRequests = await inChunks(deps, (tx) => tx.store.pruneGrantRequests(expiredBefore, PRUNE_CHUNK));
  const clients = await inChunks(deps, (tx) => tx.store.pruneUnusedClients(createdBefore, PRUNE_CHUNK));
  return { grantRequests, clients };
}

async function inChunks(deps: Deps, chunk: (tx: TxDeps) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await inTransaction(deps, chunk);
    total += removed;
    if (removed < PRUNE_CHUNK) return total;
    await nextTurn();
  }
}

/** How often a running provider prunes (and once when it starts). */
const RETENTION_EVERY_MS = HOUR_MS;

/**
 * Prunes now and every hour while the provider runs; `stop` ends it. A failed run is reported
 * and the next one tries again: pruning late never loses anything.
 */
export function startConsentRetention(deps: Deps, log: (message: string) => void): { stop(): void } {
  const run = () =>
    pruneConsentData(deps).then(
      (r) => {
        if (r.grantRequests + r.clients > 0) {
          log(
            `consent retention: removed ${r.grantRequests} expired consent requests, ${r.clients} unused self-registered clients`,
          );
        }
      },
      (e: unknown) =>
        log(`consent retention failed, will try again: ${e instanceof Error ? e.message : String(e)}`),
    );
  void run();
  const timer = setInterval(() => void run(), RETENTION_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
