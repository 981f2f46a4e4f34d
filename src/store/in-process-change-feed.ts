import type { ChangeEvent } from '../model/change-event.ts';
import {
  type ChangeFeed,
  ChangeFeedOverflow,
  type ChangeFilter,
  type ChangeSubscription,
  DEFAULT_SUBSCRIPTION_BUFFER,
  matchesFilter,
  type SubscribeOptions,
} from './change-feed.ts';
import type { ChangeReader } from './change-store.ts';

/** Rows read per outbox query, when replaying or filling a gap. */
const PAGE = 500;

/**
 * The change feed of one process (change-feed.ts), fed by the store that owns it: the store calls
 * `publish` with the events of each transaction right after its COMMIT, in commit order.
 *
 * Publishing is synchronous and costs the writer one array push per subscriber: it never waits
 * for a reader. Each subscription buffers what its reader has not taken yet, up to a bound, and
 * ends with ChangeFeedOverflow past it.
 *
 * Another process writing the same SQLite file (the CLI) publishes into its own feed, not this
 * one. Its events are still in the outbox, so when this process publishes a seq more than one
 * past the last it published, the feed first reads the gap from the outbox (asynchronously; the
 * writer does not wait) and delivers it in order. Until this process writes again, such events
 * reach live subscribers here only through a replay (`fromSeq`).
 */
export class InProcessChangeFeed implements ChangeFeed {
  readonly #outbox: Pick<ChangeReader, 'listChanges'>;
  readonly #subscriptions = new Set<FeedSubscription>();
  /** The highest seq handed to the subscriptions. */
  #published: number;
  /** Events published while a gap is being filled, in order, delivered once it is. */
  #waiting: ChangeEvent[] = [];
  #filling = false;
  /** The highest seq other processes announced (committedElsewhere), and whether it is being read. */
  #announced = 0;
  #pulling = false;
  #closed = false;

  /** `publishedSeq`: the highest seq committed when the feed starts (the outbox's latest). */
  constructor(outbox: Pick<ChangeReader, 'listChanges'>, publishedSeq: number) {
    this.#outbox = outbox;
    this.#published = publishedSeq;
  }

  subscribe(filter: ChangeFilter, options: SubscribeOptions = {}): ChangeSubscription {
    const subscription = new FeedSubscription(
      this.#outbox,
      filter,
      options.fromSeq ?? this.#published,
      options.fromSeq !== undefined,
      options.buffer ?? DEFAULT_SUBSCRIPTION_BUFFER,
      () => this.#subscriptions.delete(subscription),
    );
    // Registered before any replay query runs: an event committed from now on reaches it live,
    // one committed before is in the outbox; the subscription drops whichever comes second.
    this.#subscriptions.add(subscription);
    return subscription;
  }

  /** Called by the store after a commit, with that commit's events in seq order. */
  publish(events: readonly ChangeEvent[]): void {
    if (this.#filling) {
      this.#waiting.push(...events);
      return;
    }
    for (const [i, event] of events.entries()) {
      if (event.seq <= this.#published) continue;
      if (event.seq > this.#published + 1) {
        this.#waiting.push(...events.slice(i));
        void this.#fillGaps();
        return;
      }
      this.#deliver(event);
    }
  }

  /**
   * Another process committed change events up to `seq` (a PostgreSQL NOTIFY): they are read
   * from the outbox after the last seq published here and delivered in order, as if this process
   * had published them. A seq already published is nothing to do; several announcements while a
   * read is under way are one more read.
   */
  committedElsewhere(seq: number): void {
    if (seq <= this.#published) return;
    this.#announced = Math.max(this.#announced, seq);
    if (!this.#pulling) void this.#pullAnnounced();
  }

  async #pullAnnounced(): Promise<void> {
    this.#pulling = true;
    try {
      while (this.#announced > this.#published && !this.#closed) {
        const events = await this.#outbox.listChanges({ after: this.#published, limit: PAGE });
        if (events.length === 0) break;
        this.publish(events);
        // A gap being filled takes the events; wait for it before reading past them again.
        while (this.#filling) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      // The outbox cannot be read (the store is closing): the next announcement tries again.
    } finally {
      this.#pulling = false;
    }
  }

  /** Ends every subscription (their iterators finish); the store is closing. */
  close(): void {
    this.#closed = true;
    for (const s of [...this.#subscriptions]) s.close();
  }

  #deliver(event: ChangeEvent): void {
    this.#published = event.seq;
    for (const s of this.#subscriptions) s.offer(event);
  }

  async #fillGaps(): Promise<void> {
    this.#filling = true;
    try {
      for (;;) {
        const next = this.#waiting[0];
        if (next === undefined) break;
        if (next.seq <= this.#published + 1) {
          this.#waiting.shift();
          if (next.seq > this.#published) this.#deliver(next);
          continue;
        }
        const missing = await this.#outbox.listChanges({
          after: this.#published,
          limit: Math.min(PAGE, next.seq - this.#published - 1),
        });
        const before = this.#published;
        for (const event of missing) if (event.seq < next.seq) this.#deliver(event);
        // Committed rows are visible to the reader; none found means they are gone (pruned).
        if (this.#published === before) throw new Error(`change events after ${before} are missing`);
      }
    } catch {
      // The gap cannot be filled (the store closed, rows gone): delivering past it would skip
      // events without anyone knowing, so every subscription ends and must resume from the
      // outbox, which is the truth.
      const last = this.#waiting.at(-1);
      if (last !== undefined) this.#published = Math.max(this.#published, last.seq);
      this.#waiting = [];
      for (const s of [...this.#subscriptions]) s.fail();
    } finally {
      this.#filling = false;
    }
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** One subscriber: an optional replay from the outbox, then the live events it was offered. */
class FeedSubscription implements ChangeSubscription {
  readonly #outbox: Pick<ChangeReader, 'listChanges'>;
  readonly #filter: ChangeFilter;
  readonly #capacity: number;
  readonly #unregister: () => void;
  /** The seq of the last event delivered to the reader (or the starting point). */
  #lastSeq: number;
  /** Replay state: the outbox is read after this seq until a page comes back short. */
  #replayCursor: number;
  #replaying: boolean;
  #page: ChangeEvent[] = [];
  /** Live events offered and not yet taken. */
  #live: ChangeEvent[] = [];
  #ended: 'open' | 'closed' | ChangeFeedOverflow = 'open';
  #wake: (() => void) | undefined;
  #turn: Promise<unknown> = Promise.resolve();

  constructor(
    outbox: Pick<ChangeReader, 'listChanges'>,
    filter: ChangeFilter,
    fromSeq: number,
    replay: boolean,
    capacity: number,
    unregister: () => void,
  ) {
    this.#outbox = outbox;
    this.#filter = filter;
    this.#capacity = Math.max(1, capacity);
    this.#unregister = unregister;
    this.#lastSeq = fromSeq;
    this.#replayCursor = fromSeq;
    this.#replaying = replay;
  }

  /** Synchronous, from the publisher: buffer the event or, past the bound, end. */
  offer(event: ChangeEvent): void {
    if (this.#ended !== 'open' || !matchesFilter(this.#filter, event)) return;
    this.#live.push(event);
    if (this.#live.length > this.#capacity) {
      this.fail();
      return;
    }
    this.#notify();
  }

  /** Ends the subscription with ChangeFeedOverflow at the last delivered seq. */
  fail(): void {
    if (this.#ended !== 'open') return;
    this.#end(new ChangeFeedOverflow(this.#lastSeq));
  }

  close(): void {
    if (this.#ended === 'open') this.#end('closed');
  }

  [Symbol.asyncIterator](): AsyncIterator<ChangeEvent> {
    return {
      // One reader: calls are taken in turn even if the reader does not await each one.
      next: () => {
        const result = this.#turn.then(() => this.#next());
        this.#turn = result.catch(() => undefined);
        return result;
      },
      return: async () => {
        this.close();
        return DONE;
      },
    };
  }

  #end(how: 'closed' | ChangeFeedOverflow): void {
    this.#ended = how;
    this.#live = [];
    this.#page = [];
    this.#unregister();
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #next(): Promise<IteratorResult<ChangeEvent>> {
    for (;;) {
      if (this.#ended === 'closed') return DONE;
      if (this.#ended !== 'open') {
        const error = this.#ended;
        this.#ended = 'closed';
        throw error;
      }
      let event = this.#page.shift();
      if (event === undefined && this.#replaying) {
        await this.#readPage();
        continue;
      }
      event ??= this.#live.shift();
      if (event === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        continue;
      }
      // Seen already (replayed, then offered live, or the other way round).
      if (event.seq <= this.#lastSeq) continue;
      this.#lastSeq = event.seq;
      return { done: false, value: event };
    }
  }

  /** Reads the next page of the replay; a short page ends it. */
  async #readPage(): Promise<void> {
    const rows = await this.#outbox.listChanges({
      after: this.#replayCursor,
      ...(this.#filter.subjectId !== undefined ? { subjectId: this.#filter.subjectId } : {}),
      limit: PAGE,
    });
    if (this.#ended !== 'open') return;
    const last = rows.at(-1);
    if (last !== undefined) this.#replayCursor = last.seq;
    if (rows.length < PAGE) this.#replaying = false;
    this.#page = rows.filter((e) => matchesFilter(this.#filter, e));
  }
}
