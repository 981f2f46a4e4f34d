import type { ChangeDraft, ChangeEvent } from '../model/change-event.ts';

// The change-event side of the store contract (the outbox, migration 0009). StoreReader and
// StoreWriter in store.ts extend these interfaces; the conventions stated there hold here too.
// Delivery after commit is the change feed's job (change-feed.ts), not these methods'.

interface ChangeQuery {
  /** Only events with a seq above this (0 for every event). */
  readonly after: number;
  /** Only events about this subject. */
  readonly subjectId?: string;
  /** Page size, 1..1000. */
  readonly limit: number;
}

export interface ChangeReader {
  /**
   * Committed change events with seq > `after` (of one subject, when given), oldest (lowest seq)
   * first, at most `limit`. Empty when none: a seq past the end is not an error.
   */
  listChanges(query: ChangeQuery): Promise<ChangeEvent[]>;
  /** The highest seq ever committed; 0 when the outbox is empty. */
  latestChangeSeq(): Promise<number>;
}

export interface ChangeWriter {
  /**
   * Appends one change event to the outbox and returns it with its seq (the next one; a
   * rolled-back append consumes none). Inside a transaction the
   * event commits, and is published to the change feed, with the transaction; outside one it is
   * committed and published on its own.
   */
  appendChange(draft: ChangeDraft): Promise<ChangeEvent>;
  /**
   * Records that a grant's expiry was announced. True only the first time for a grant id (the
   * caller then appends the `grant_expired` event in the same transaction); false ever after.
   */
  markGrantExpiryAnnounced(grantId: string): Promise<boolean>;
}
