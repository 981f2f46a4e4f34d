import type { ChangeEvent, ChangeKind } from '../model/change-event.ts';

// The change feed: how committed change events reach subscribers (docs/store.md, "Change
// events"). The outbox (change-store.ts) is the truth; the feed only tells subscribers, after
// commit, what the outbox now holds, so a subscriber that missed something resubscribes from
// the last seq it saw and replays the rest from the outbox.
//
// Implementations:
// - in-process (in-process-change-feed.ts), owned by the SQLite store: its transaction() knows
//   which events it appended and publishes them after COMMIT (a rollback publishes nothing).
// - PostgreSQL, later: the same outbox table written in the same transaction, plus `NOTIFY
//   ppx_changes, '<seq>'` before COMMIT (PostgreSQL delivers a notification only if, and when,
//   its transaction commits). Every instance `LISTEN`s on one connection and, on a notification,
//   reads the outbox after the last seq it published and publishes those rows through the same
//   in-process fan-out; replay and resume are `listChanges` as here. Seqs there come from a
//   counter row updated under a lock in the writing transaction (a SEQUENCE would leave holes on
//   rollback and commit out of order), so "after seq N" still misses nothing.

export interface ChangeFilter {
  /** Only events about this subject. */
  readonly subjectId?: string;
  /** Only events whose `grants` include at least one of these. */
  readonly grantIds?: readonly string[];
  /** Only events of these kinds. */
  readonly kinds?: readonly ChangeKind[];
}

export interface SubscribeOptions {
  /**
   * Replay every matching event with a seq above this one from the outbox first, then go on
   * live. Absent: live events only, from the next commit on.
   */
  readonly fromSeq?: number;
  /** How many undelivered events the subscription may hold before it overflows (default 1000). */
  readonly buffer?: number;
}

/**
 * One subscriber's view of the feed: iterate it to get matching events in seq order, each once,
 * none skipped. It ends when `close()` is called (the iterator finishes) or when it overflows
 * (the iterator throws ChangeFeedOverflow). Iterate it once.
 */
export interface ChangeSubscription extends AsyncIterable<ChangeEvent> {
  /** Ends the subscription now; a pending `next()` resolves as done. Idempotent. */
  close(): void;
}

export interface ChangeFeed {
  subscribe(filter: ChangeFilter, options?: SubscribeOptions): ChangeSubscription;
}

/**
 * A subscription held more undelivered events than its buffer allows (its reader was too slow):
 * it ended, and the reader must subscribe again with `fromSeq: lastSeq` to get the rest from the
 * outbox. Writers never wait for a reader; this is what happens instead.
 */
export class ChangeFeedOverflow extends Error {
  /**
   * The seq of the last event the subscription delivered; if it delivered none, the point it
   * started from (its `fromSeq`, or the last seq published when it subscribed live).
   */
  readonly lastSeq: number;

  constructor(lastSeq: number) {
    super(`change subscription overflowed after seq ${lastSeq}; subscribe again from it`);
    this.name = 'ChangeFeedOverflow';
    this.lastSeq = lastSeq;
  }
}

export const DEFAULT_SUBSCRIPTION_BUFFER = 1000;

/** Whether an event passes a filter. */
export function matchesFilter(filter: ChangeFilter, event: ChangeEvent): boolean {
  if (filter.subjectId !== undefined && event.subject_id !== filter.subjectId) return false;
  if (filter.kinds !== undefined && !filter.kinds.includes(event.kind)) return false;
  if (filter.grantIds !== undefined && !event.grants.some((g) => filter.grantIds?.includes(g))) return false;
  return true;
}
