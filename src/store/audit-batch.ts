import type { AuditEvent } from '../model/audit-event.ts';

/**
 * Where an AuditBatcher writes: the driver's statements, lock and connection. Each method may be
 * synchronous (SQLite) or async (PostgreSQL).
 */
export interface AuditSink {
  /**
   * Runs one whole flush (the batch, and its retry item by item when it fails) apart from the
   * store's other writes: SQLite's write mutex, so that the retry follows the failed batch with no
   * transaction between them. Default: no wrapping (each write serializes itself).
   */
  readonly exclusive?: (flush: () => Promise<void>) => Promise<void>;
  /** True once the store is closed: a flush then fails every caller with "store is closed". */
  isClosed(): boolean;
  /** Appends every event in one commit; throws (having written nothing) when any of them fails. */
  writeAll(events: readonly AuditEvent[]): void | Promise<void>;
  /**
   * Appends each item's events apart, so that a failing item fails alone: one outcome per item,
   * undefined for written, else its error.
   */
  writeEach(items: readonly (readonly AuditEvent[])[]): unknown[] | Promise<unknown[]>;
}

interface Pending {
  readonly events: readonly AuditEvent[];
  readonly done: (error?: unknown) => void;
}

/**
 * Group commit for the audit log: every read appends an event before it answers, so under load the
 * appends made in the same turn of the event loop share one commit, in the order they were made.
 * Each caller's promise settles after the commit that holds its events (an answered read is always
 * in the log). The batch is written in one go (`writeAll`); only when that fails (a duplicate id)
 * is it written again item by item (`writeEach`), so that the failing one fails alone: the common
 * case costs one commit. A batch of one fails with its own error at once.
 *
 * The driver checks, before `append`, that the store is open and that the caller is not inside a
 * transaction (TransactionGuard), and awaits `flush()` on close.
 */
export class AuditBatcher {
  readonly #sink: AuditSink;
  #queue: Pending[] = [];
  /** The flushes under way: with no `exclusive` section, batches may be written side by side. */
  readonly #flushing = new Set<Promise<void>>();

  constructor(sink: AuditSink) {
    this.#sink = sink;
  }

  /** Queues `events` for the next flush, booked after this turn of the event loop by the first append. */
  append(events: readonly AuditEvent[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => void this.flush());
      this.#queue.push({ events, done: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  /**
   * Writes what is queued now; settles when every caller of this batch, and of every flush under
   * way, has been answered (what `close` awaits before closing the connections).
   */
  async flush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length > 0) {
      const write = () => this.#write(batch);
      const flushing = this.#sink.exclusive === undefined ? write() : this.#sink.exclusive(write);
      this.#flushing.add(flushing);
      const done = () => this.#flushing.delete(flushing);
      flushing.then(done, done);
    }
    await Promise.all(this.#flushing);
  }

  async #write(batch: readonly Pending[]): Promise<void> {
    const sink = this.#sink;
    if (sink.isClosed()) {
      for (const item of batch) item.done(new Error('store is closed'));
      return;
    }
    try {
      await sink.writeAll(batch.length === 1 ? batch[0]!.events : batch.flatMap((item) => item.events));
    } catch (first) {
      if (batch.length === 1) return batch[0]!.done(first);
      let outcomes: unknown[];
      try {
        outcomes = await sink.writeEach(batch.map((item) => item.events));
      } catch (error) {
        for (const item of batch) item.done(error);
        return;
      }
      for (const [i, item] of batch.entries()) item.done(outcomes[i]);
      return;
    }
    for (const item of batch) item.done();
  }
}
