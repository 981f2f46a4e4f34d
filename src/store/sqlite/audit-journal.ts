import { randomUUID } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { AuditEvent, takeMintedMark } from '../../model/audit-event.ts';
import { eventsOfLines, type JournalPart, lineOf, removeJournalFile, textOfParts } from './journal-lines.ts';
import { isOtherProcessAlive, processStamp } from './process-stamp.ts';

/** A journal's events move into the database at most this long after the first of them was written. */
const MOVE_AFTER_MS = 50;
/** …or as soon as this many wait, whichever comes first. */
const MOVE_AT_COUNT = 1000;
/** After a move that could not commit (the file busy, the disk full), the next try. */
const RETRY_AFTER_MS = 1000;
/**
 * Past this many events waiting (moves failing for a long while: a full disk, a broken file), an
 * append fails as a failing commit did, so that reads are refused rather than the journal and
 * this process's memory growing without bound.
 */
const MAX_WAITING = 100_000;
/**
 * After a move on the event loop, the file being written is kept and written on (what it holds up
 * to then is in the log: `Segment.moved`) until it is this long; then it is removed, and the next
 * append starts another. Emptying it at every move (`ftruncate`) took ~300 µs of the event loop on
 * this machine's ext4 while SQLite's threads wrote and synced, and a write transaction moves the
 * journal first: it was 6 % of an A2A send (docs/benchmarks.md, "A2A: the journal's file kept").
 * Recovery reads such a file whole and skips what is logged, by id: at most this much again.
 */
const ROLL_AT_BYTES = 1 << 20;

/** How a journal's events reach the database: the store's statements, in one transaction each. */
export interface JournalSink {
  /** Runs `move` when the write connection is free (the store's write mutex), until it settles. */
  readonly exclusive: (move: () => void | Promise<void>) => Promise<void>;
  /** Appends every event in one commit; throws (having written nothing) when any of them fails. */
  readonly writeAll: (events: readonly AuditEvent[]) => void;
  /** Appends each item apart (a savepoint each): per item, undefined for written, else its error. */
  readonly writeEach: (items: readonly (readonly AuditEvent[])[]) => unknown[];
  /** Whether the log holds an event of this id (one look-up in its unique index). */
  readonly has: (eventId: string) => boolean;
  /**
   * Appends the events of these journal files' parts (closed, oldest first; journal-lines.ts) in
   * one commit on another thread (audit-mover.ts), which then removes the files: true once
   * committed, false when nothing was (the journal then moves them itself). Undefined when there is
   * no such thread now. Called with the write connection held.
   */
  readonly moveAway?: (parts: readonly JournalPart[], count: number) => Promise<boolean> | undefined;
}

/** One journal file: its length, how much of it is in the log, and the ids of the events that wait. */
interface Segment {
  readonly file: string;
  fd: number | undefined;
  /** The file's length: where a write that failed part way is cut back to. */
  bytes: number;
  /** The bytes at the file's start whose events are in the log: a move reads from here. */
  moved: number;
  readonly ids: string[];
}

/**
 * The audit log's append path on a SQLite file (issue 27, item 3): an event is written to this
 * process's journal file, one JSON line, before the request that made it is answered, and moved
 * into `audit_events` in batches (MOVE_AFTER_MS, MOVE_AT_COUNT) by one commit each. A lone
 * sequential client paid one SQLite commit per read (~30 µs of CPU, a dozen system calls, and a
 * turn of the event loop before its answer); a journal line is part of one `write` per turn of the
 * event loop, shared by every read answered in that turn (a `write` to the file was ~20 µs here).
 *
 * A move runs on another thread once the store has one (`JournalSink.moveAway`, audit-mover.ts):
 * its inserts, 7 to 10 µs an event, stopped the event loop 5 to 9 ms every move under load, which
 * was much of the small read's p99 (docs/benchmarks.md, "The journal's move on a thread, second build").
 * Appends go on meanwhile, so a move takes whole files: the file being written is closed and the
 * next append starts another (a segment each), and a segment's file is removed once its events are
 * committed. A move on the event loop keeps the file being written and notes how much of it is in
 * the log (`Segment.moved`, ROLL_AT_BYTES). What waits is read back from the files: an event then
 * dies young, instead of living through a collection or two in a move's batch, and the thread is
 * sent file names, not text.
 *
 * Durability is the database's own: with WAL and `synchronous = NORMAL` a commit is in the OS's
 * page cache, not on the disk, and so is a journal line; both survive the process being killed,
 * neither a power loss. A journal left by a process that died is moved by the next store opened
 * on the file (`recoverAuditJournals`), its segments in the order they were written.
 *
 * Readers of this process never see the log without its journal: `listAudit` moves the journal
 * first, and so does every write transaction before it begins (so the log's order, `seq`, stays
 * the order in which this process appended, including events that commit with a transaction).
 * Another process on the same file (a `ppx` command) sees them within MOVE_AFTER_MS.
 */
export class AuditJournal {
  readonly #dir: string;
  readonly #sink: JournalSink;
  /** This journal's files are `<process stamp>-<#name>-<n>.jsonl`, n counting up from 0. */
  readonly #name = randomUUID().slice(0, 8);
  #nextSegment = 0;
  /** The files written to before the current one, oldest first, whose events wait to be moved. */
  #closedSegments: Segment[] = [];
  /** The file appends go to now; undefined until the first append after a move took the last. */
  #current: Segment | undefined;
  /** How many events wait in every segment. */
  #waiting = 0;
  /** The ids of every waiting event: an id is in the log once, whether moved or waiting. */
  readonly #waitingIds = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /**
   * The lines appended in this turn of the event loop, not written yet, their events' ids, and the
   * appends that wait for them: they are written together at the turn's end (`#writeOut`), one
   * `write` for every read the turn served instead of one each.
   */
  #unwritten = '';
  #unwrittenIds: string[] = [];
  #writers: { readonly done: () => void; readonly failed: (error: unknown) => void }[] = [];
  #writeScheduled = false;

  constructor(dir: string, sink: JournalSink) {
    this.#dir = dir;
    this.#sink = sink;
  }

  /**
   * Writes `events` to the journal, or none of them when one has the id of an event already in the
   * log (the store contract's duplicate rule: the original never changes). Settles once they are
   * written: at the end of this turn of the event loop, together with every other append of the
   * turn (a request's answer waits for it, as it waited for a group commit).
   */
  append(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    if (this.#waiting >= MAX_WAITING) {
      throw new Error(`the audit log cannot be written: ${this.#waiting} events wait to be moved`);
    }
    const ids = new Set<string>();
    for (const event of events) {
      const id = event.event_id;
      if (ids.has(id) || this.#waitingIds.has(id)) throw new Error(`audit event ${id} is already in the log`);
      // A freshly minted id cannot be in the database yet: only other ids are looked up there.
      if (!takeMintedMark(event) && this.#sink.has(id))
        throw new Error(`audit event ${id} is already in the log`);
      ids.add(id);
    }
    for (const event of events) this.#unwritten += lineOf(event);
    for (const id of ids) {
      this.#waitingIds.add(id);
      this.#unwrittenIds.push(id);
    }
    this.#waiting += ids.size;
    const written = new Promise<void>((done, failed) => this.#writers.push({ done, failed }));
    if (!this.#writeScheduled) {
      this.#writeScheduled = true;
      setImmediate(() => this.#writeOut());
    }
    return written;
  }

  /**
   * Writes the turn's lines and settles their appends; on a failed write, their events are
   * dropped from what waits (their appends fail, as a failed commit did) and the file is cut back
   * to its length before. Called at the turn's end, and before any move, so that what is moved is
   * always what the files hold.
   */
  #writeOut(): void {
    this.#writeScheduled = false;
    const writers = this.#writers;
    if (writers.length === 0) return;
    const text = this.#unwritten;
    const ids = this.#unwrittenIds;
    this.#unwritten = '';
    this.#unwrittenIds = [];
    this.#writers = [];
    let segment: Segment | undefined;
    try {
      segment = this.#current ?? this.#open();
      segment.bytes += writeAllOf(segment.fd as number, text);
    } catch (error) {
      for (const id of ids) this.#waitingIds.delete(id);
      this.#waiting -= ids.length;
      if (segment?.fd !== undefined && !cutBack(segment)) this.#closeCurrent();
      for (const w of writers) w.failed(error);
      return;
    }
    for (const id of ids) segment.ids.push(id);
    for (const w of writers) w.done();
    if (this.#waiting >= MOVE_AT_COUNT) this.#schedule(0);
    else if (this.#timer === undefined) this.#schedule(MOVE_AFTER_MS);
  }

  /** How many events wait in the journal (tests, metrics). */
  get waiting(): number {
    return this.#waiting;
  }

  /** Moves what waits now, when the write connection is free; settles once it is moved (or kept). */
  flush(): Promise<void> {
    if (this.#waiting === 0) return Promise.resolve();
    return this.#sink.exclusive(() => this.#move());
  }

  /**
   * Before a write transaction, with the write connection held: moves what waits, on the mover's
   * thread when there is one (a promise then), and then, on this one, what was appended meanwhile,
   * so that the transaction's own events follow every event appended before it.
   */
  beforeWrite(): void | Promise<void> {
    const moving = this.#move();
    return moving === undefined ? undefined : moving.then(() => this.#moveNow());
  }

  /**
   * Moves what waits: on the mover's thread when the store has one (settling once it is
   * committed), else here and now. The caller holds the write connection.
   */
  #move(): void | Promise<void> {
    this.#writeOut();
    if (this.#waiting === 0) return;
    const batch = this.#segments();
    const moved = this.#sink.moveAway?.(batch.map(partOf), this.#waiting);
    if (moved === undefined) return this.#moveNow();
    this.#clearTimer();
    // Appends go on while the mover works: the file they went to is closed, and taken whole.
    this.#closeCurrent();
    return moved.then(
      (committed) => (committed ? this.#moved(batch) : this.#moveNow(true)),
      () => this.#moveNow(true),
    );
  }

  /** After the mover committed `batch`, the oldest segments (and removed their files): their ids go. */
  #moved(batch: readonly Segment[]): void {
    this.#closedSegments = this.#closedSegments.filter((segment) => !batch.includes(segment));
    for (const segment of batch) {
      for (const id of segment.ids) this.#waitingIds.delete(id);
      this.#waiting -= segment.ids.length;
    }
  }

  /**
   * Moves what waits into the database, here, by one commit; the caller holds the write
   * connection, with no transaction open on it. Never throws: events that cannot be written now
   * stay in the journal and are tried again later. `skipLogged`: after the mover failed, which may
   * have committed before it did, events already in the log are not appended again.
   */
  #moveNow(skipLogged = false): void {
    this.#writeOut();
    if (this.#waiting === 0) return;
    this.#clearTimer();
    let events: AuditEvent[];
    try {
      events = eventsOfLines(textOfParts(this.#segments().map(partOf)));
    } catch {
      // A file that cannot be read now (descriptors exhausted): tried again later.
      this.#schedule(RETRY_AFTER_MS);
      return;
    }
    if (skipLogged) events = events.filter((event) => !this.#sink.has(event.event_id));
    try {
      this.#sink.writeAll(events);
    } catch {
      if (!this.#moveEach(events)) {
        this.#schedule(RETRY_AFTER_MS);
        return;
      }
    }
    for (const segment of this.#closedSegments) removeJournalFile(segment.file);
    this.#closedSegments = [];
    this.#waitingIds.clear();
    this.#waiting = 0;
    const current = this.#current;
    if (current === undefined) return;
    current.moved = current.bytes;
    current.ids.length = 0;
    if (current.bytes < ROLL_AT_BYTES) return;
    // Long enough: the next append starts a file of its own; this one's events are in the log.
    this.#closeCurrent();
    this.#closedSegments = [];
    removeJournalFile(current.file);
  }

  /** The file being written is closed; the next append starts another. */
  #closeCurrent(): void {
    const current = this.#current;
    if (current === undefined) return;
    this.#closeFile(current);
    this.#closedSegments.push(current);
    this.#current = undefined;
  }

  /**
   * One by one, after the batch failed: an event that fails alone (a duplicate event id, which
   * cannot happen but for a replay) is set aside in a file beside the journal, never dropped.
   * False when even that could not commit: everything stays in the journal.
   */
  #moveEach(events: readonly AuditEvent[]): boolean {
    let outcomes: unknown[];
    try {
      outcomes = this.#sink.writeEach(events.map((event) => [event]));
    } catch {
      return false;
    }
    const failed = events.filter((_, i) => outcomes[i] !== undefined);
    if (failed.length > 0) {
      const fd = openSync(join(this.#dir, `${processStamp()}-${this.#name}.failed`), 'a');
      try {
        writeAllOf(fd, failed.map(lineOf).join(''));
      } finally {
        closeSync(fd);
      }
    }
    return true;
  }

  /** Moves what waits and removes the journal's files; the caller holds the write connection. */
  close(): void {
    this.#closed = true;
    this.#clearTimer();
    this.#moveNow();
    // What could not be moved is left to the next store opened on the file, not retried here.
    this.#clearTimer();
    const current = this.#current;
    if (current === undefined) return;
    this.#closeFile(current);
    // Kept when something could not be moved: the next store opened on the file moves it.
    if (this.#waiting === 0) removeJournalFile(current.file);
  }

  /** Every segment whose events wait, oldest first. */
  #segments(): readonly Segment[] {
    const current = this.#current;
    return current === undefined ? this.#closedSegments : [...this.#closedSegments, current];
  }

  #open(): Segment {
    mkdirSync(this.#dir, { recursive: true });
    const n = String(this.#nextSegment++).padStart(10, '0');
    const file = join(this.#dir, `${processStamp()}-${this.#name}-${n}.jsonl`);
    const segment: Segment = { file, fd: openSync(file, 'a'), bytes: 0, moved: 0, ids: [] };
    this.#current = segment;
    return segment;
  }

  #closeFile(segment: Segment): void {
    if (segment.fd === undefined) return;
    closeSync(segment.fd);
    segment.fd = undefined;
  }

  #schedule(ms: number): void {
    this.#clearTimer();
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, ms);
    // A process that ends without closing its store leaves the journal to the next opener.
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** What of a segment's file waits to be moved. */
function partOf(segment: Segment): JournalPart {
  return { file: segment.file, from: segment.moved };
}

/** Writes all of `text` to the file; its length in bytes. */
function writeAllOf(fd: number, text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done);
  return bytes.length;
}

/**
 * After a write that failed part way: the file cut back to its last whole line, so that the next
 * line does not follow a cut one (a move and recovery would skip both). False when even that
 * failed: the caller then closes the file, whose cut last line a move skips.
 */
function cutBack(segment: Segment): boolean {
  try {
    ftruncateSync(segment.fd as number, segment.bytes);
    return true;
  } catch {
    return false;
  }
}

/** What recovery needs of the store: its write transaction, a look-up by id, and the insert. */
export interface RecoverySink {
  /** Runs `work` in one write transaction (BEGIN IMMEDIATE … COMMIT), rolled back if it throws. */
  readonly inTransaction: (work: () => void) => void;
  readonly has: (eventId: string) => boolean;
  readonly insert: (events: readonly AuditEvent[]) => void;
}

/**
 * Moves the journals of processes that are gone into the database: called when a store opens. The
 * look-ups and inserts run in one write transaction, so two stores opening at once never move one
 * journal twice. Events already in the log (the dead process committed them and was killed before
 * removing the file, or kept writing it after a move: ROLL_AT_BYTES) are skipped by id; a last line cut short by the kill was never
 * acknowledged, and a line that is not an audit event is not one: both are skipped. The journals
 * are removed after the commit (a kill in between leaves them to be read again, all skipped).
 */
export function recoverAuditJournals(dir: string, sink: RecoverySink): number {
  let names: string[];
  try {
    // Sorted: a journal's segments are numbered in the order they were written (AuditJournal#open).
    names = readdirSync(dir)
      .filter((name) => name.endsWith('.jsonl'))
      .sort();
  } catch {
    return 0;
  }
  const files = names.filter((name) => !isOtherProcessAlive(name)).map((name) => join(dir, name));
  if (files.length === 0) return 0;
  let moved = 0;
  sink.inTransaction(() => {
    for (const file of files) {
      const events = readJournal(file).filter((event) => !sink.has(event.event_id));
      sink.insert(events);
      moved += events.length;
    }
  });
  for (const file of files) rmSync(file, { force: true });
  return moved;
}

function readJournal(file: string): AuditEvent[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const events: AuditEvent[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const event = AuditEvent.safeParse(JSON.parse(line));
      if (event.success) events.push(event.data);
    } catch {
      // A line cut short by the kill: its request was never answered.
    }
  }
  return events;
}
