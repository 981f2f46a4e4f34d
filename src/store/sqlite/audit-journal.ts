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
import { keyListJson } from '../audit-rows.ts';
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

/** How a journal's events reach the database: the store's statements, in one transaction each. */
export interface JournalSink {
  /** Runs `move` when the write connection is free (the store's write mutex). */
  readonly exclusive: (move: () => void) => Promise<void>;
  /** Appends every event in one commit; throws (having written nothing) when any of them fails. */
  readonly writeAll: (events: readonly AuditEvent[]) => void;
  /** Appends each item apart (a savepoint each): per item, undefined for written, else its error. */
  readonly writeEach: (items: readonly (readonly AuditEvent[])[]) => unknown[];
  /** Whether the log holds an event of this id (one look-up in its unique index). */
  readonly has: (eventId: string) => boolean;
}

/**
 * The audit log's append path on a SQLite file (issue 27, item 3): an event is written to this
 * process's journal file, one JSON line, before the request that made it is answered, and moved
 * into `audit_events` in batches (MOVE_AFTER_MS, MOVE_AT_COUNT) by one commit each. A lone
 * sequential client paid one SQLite commit per read (~30 µs of CPU, a dozen system calls, and a
 * turn of the event loop before its answer); a journal line is part of one `write` per turn of the
 * event loop, shared by every read answered in that turn (a `write` to the file was ~20 µs here).
 *
 * Durability is the database's own: with WAL and `synchronous = NORMAL` a commit is in the OS's
 * page cache, not on the disk, and so is a journal line; both survive the process being killed,
 * neither a power loss. A journal left by a process that died is moved by the next store opened
 * on the file (`recoverAuditJournals`).
 *
 * Readers of this process never see the log without its journal: `listAudit` moves the journal
 * first, and so does every write transaction before it begins (so the log's order, `seq`, stays
 * the order in which this process appended, including events that commit with a transaction).
 * Another process on the same file (a `ppx` command) sees them within MOVE_AFTER_MS.
 */
export class AuditJournal {
  readonly #dir: string;
  readonly #sink: JournalSink;
  #file: string | undefined;
  #fd: number | undefined;
  #pending: AuditEvent[] = [];
  /** The ids of #pending: an id is in the log once, whether moved or waiting. */
  readonly #pendingIds = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /**
   * The lines appended in this turn of the event loop, not written yet, and the appends that wait
   * for them: they are written together at the turn's end (`#writeOut`), one `write` for every
   * read the turn served instead of one each. They are the last events of #pending, from #unwrittenFrom.
   */
  #unwritten = '';
  #unwrittenFrom = 0;
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
    if (this.#pending.length >= MAX_WAITING) {
      throw new Error(`the audit log cannot be written: ${this.#pending.length} events wait to be moved`);
    }
    const ids = new Set<string>();
    for (const event of events) {
      const id = event.event_id;
      if (ids.has(id) || this.#pendingIds.has(id)) throw new Error(`audit event ${id} is already in the log`);
      // A freshly minted id cannot be in the database yet: only other ids are looked up there.
      if (!takeMintedMark(event) && this.#sink.has(id))
        throw new Error(`audit event ${id} is already in the log`);
      ids.add(id);
    }
    for (const event of events) this.#unwritten += lineOf(event);
    for (const event of events) this.#pending.push(event);
    for (const id of ids) this.#pendingIds.add(id);
    const written = new Promise<void>((done, failed) => this.#writers.push({ done, failed }));
    if (!this.#writeScheduled) {
      this.#writeScheduled = true;
      setImmediate(() => this.#writeOut());
    }
    return written;
  }

  /**
   * Writes the turn's lines and settles their appends; on a failed write, their events are
   * dropped from what waits (their appends fail, as a failed commit did). Called at the turn's
   * end, and before any move, so that what is moved is always what the file holds.
   */
  #writeOut(): void {
    this.#writeScheduled = false;
    const writers = this.#writers;
    if (writers.length === 0) return;
    const text = this.#unwritten;
    const from = this.#unwrittenFrom;
    this.#unwritten = '';
    this.#writers = [];
    try {
      writeAllOf(this.#fd ?? this.#open(), text);
    } catch (error) {
      for (const event of this.#pending.splice(from)) this.#pendingIds.delete(event.event_id);
      for (const w of writers) w.failed(error);
      return;
    } finally {
      this.#unwrittenFrom = this.#pending.length;
    }
    for (const w of writers) w.done();
    if (this.#pending.length >= MOVE_AT_COUNT) this.#schedule(0);
    else if (this.#timer === undefined) this.#schedule(MOVE_AFTER_MS);
  }

  /** How many events wait in the journal (tests, metrics). */
  get waiting(): number {
    return this.#pending.length;
  }

  /** Moves what waits now, when the write connection is free; settles once it is moved (or kept). */
  flush(): Promise<void> {
    if (this.#pending.length === 0) return Promise.resolve();
    return this.#sink.exclusive(() => this.moveNow());
  }

  /**
   * Moves what waits into the database, by one commit; the caller holds the write connection, with
   * no transaction open on it. Never throws: events that cannot be written now stay in the journal
   * and are tried again later.
   */
  moveNow(): void {
    this.#writeOut();
    const events = this.#pending;
    if (events.length === 0) return;
    this.#clearTimer();
    try {
      this.#sink.writeAll(events);
    } catch {
      if (!this.#moveEach(events)) {
        this.#schedule(RETRY_AFTER_MS);
        return;
      }
    }
    this.#pending = [];
    this.#unwrittenFrom = 0;
    this.#pendingIds.clear();
    // O_APPEND: the next line goes to the start of the emptied file.
    if (this.#fd !== undefined) ftruncateSync(this.#fd, 0);
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
      const fd = openSync(`${this.#file}.failed`, 'a');
      try {
        writeAllOf(fd, failed.map(lineOf).join(''));
      } finally {
        closeSync(fd);
      }
    }
    return true;
  }

  /** Moves what waits and removes the journal file; the caller holds the write connection. */
  close(): void {
    this.#closed = true;
    this.#clearTimer();
    this.moveNow();
    // What could not be moved is left to the next store opened on the file, not retried here.
    this.#clearTimer();
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    // Kept when something could not be moved: the next store opened on the file moves it.
    if (this.#pending.length === 0 && this.#file !== undefined) rmSync(this.#file, { force: true });
  }

  #open(): number {
    mkdirSync(this.#dir, { recursive: true });
    this.#file = join(this.#dir, `${processStamp()}-${randomUUID().slice(0, 8)}.jsonl`);
    this.#fd = openSync(this.#file, 'a');
    return this.#fd;
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

/**
 * An event's journal line: its JSON, the claim-key list's taken from keyListJson, which keeps the
 * text of a shared list (every read of one scope names the same one; serializing its keys again
 * for each read was most of the line's cost).
 */
export function lineOf(event: AuditEvent): string {
  const { claim_keys, ...rest } = event;
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)},"claim_keys":${keyListJson(claim_keys)}}\n`;
}

function writeAllOf(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done);
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
 * journal twice. Events already in the log (the dead process committed them but was killed before
 * emptying its journal) are skipped by id; a last line cut short by the kill was never
 * acknowledged, and a line that is not an audit event is not one: both are skipped. The journals
 * are removed after the commit (a kill in between leaves them to be read again, all skipped).
 */
export function recoverAuditJournals(dir: string, sink: RecoverySink): number {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
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
