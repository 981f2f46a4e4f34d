import { AsyncLocalStorage } from 'node:async_hooks';
import { deepFreeze } from '../deep-freeze.ts';
import type { StoreWriter } from '../store.ts';
import type { StatementCache } from './statement-cache.ts';
import { CommitMark, type WalIndexHeader } from './wal-index-header.ts';

/**
 * Records read by primary key (grants, clients, token families, profiles with their content),
 * kept while nothing changed them: every read of a grant-bearing request looks the same grant and
 * profile up again, every token refresh its client, family and grants, and each lookup was a
 * statement and a parse. Valid only for a connection that sees committed data alone, like
 * ContentCache. `PRAGMA data_version` moves when another connection commits, another process
 * included: it is checked at a request's first read of the cache (`freshReads`) or, outside a
 * request, at every read; and the store calls `clear` after its own commits that may have changed
 * a kept record (anything but KEEPS_RECORDS). So a request sees every commit made before it began,
 * from wherever it came (a revocation included), and its own. Entries are deep-frozen: every
 * reader shares them.
 */
export class RecordCache {
  readonly #sql: StatementCache;
  readonly #entries = new Map<string, unknown>();
  readonly #commits: CommitMark | undefined;
  #dataVersion = -1;

  /** `header`: the file's WAL index, read first so that SQLite is asked only after a commit. */
  constructor(sql: StatementCache, header?: WalIndexHeader) {
    this.#sql = sql;
    this.#commits = header === undefined ? undefined : new CommitMark(header);
  }

  /** The value under `key` if nothing was committed since it was stored; else loads and keeps it. */
  read<T>(key: string, load: () => T | undefined): T | undefined {
    const checked = requests.getStore();
    if (checked === undefined || performance.now() > checked.until || !checked.caches.includes(this)) {
      // A read transaction of its own (SQLite's locks on the WAL index, a few system calls): once
      // a request, not once a read (three a token refresh), and only when the WAL index's header
      // moved since the last check (wal-index-header.ts): one pread when nothing was committed.
      if (this.#commits?.unchanged() !== true) {
        const version = Number(this.#sql.get('PRAGMA data_version').get()?.['data_version']);
        if (version !== this.#dataVersion) {
          this.#entries.clear();
          this.#dataVersion = version;
        }
      }
      if (checked !== undefined && !checked.caches.includes(this)) checked.caches.push(this);
    }
    const hit = this.#entries.get(key) as T | undefined;
    if (hit !== undefined) return hit;
    const value = load();
    if (value === undefined) return undefined;
    if (this.#entries.size >= 5000) this.#entries.clear();
    this.#entries.set(key, deepFreeze(value));
    return value;
  }

  /**
   * After a commit of this process that may have changed a kept record: data_version does not
   * move for a connection's own, and a request may not check it again before its next read.
   */
  clear(): void {
    this.#entries.clear();
  }
}

/** The caches a request has checked since it began, until when that check covers its reads. */
interface Checked {
  readonly until: number;
  readonly caches: RecordCache[];
}

const requests = new AsyncLocalStorage<Checked>();

/** How long a request's check covers its reads: a stream's later reads check again (as PostgreSQL's). */
const FRESH_MS = 1000;

/**
 * Runs `fn` (a request) with each cache checked once, at its first read in it, instead of at every
 * read: every commit made before the request began is seen all the same (store.ts#freshReads).
 *
 * The first request of a turn of the event loop starts at once, with a check of its own. Those
 * that arrive after it in the same turn start together at the turn's end (setImmediate) and share
 * one check: each arrived before any of them read, so a check at their first read is after every
 * one of them began. With many clients a turn brings many requests, and `PRAGMA data_version` (a
 * read transaction of its own, ~20 µs here) was the largest cost of a small read after the socket
 * write (docs/benchmarks.md); a lone client's request waits for nothing. Each request runs in its
 * own async context.
 */
export function freshReads<T>(fn: () => Promise<T>): Promise<T> {
  const batch = arriving;
  if (batch === undefined) {
    let start!: (checked: Checked) => void;
    const later: Batch = { starts: new Promise<Checked>((resolve) => (start = resolve)) };
    arriving = later;
    setImmediate(() => {
      arriving = undefined;
      start({ until: performance.now() + FRESH_MS, caches: [] });
    });
    return requests.run({ until: performance.now() + FRESH_MS, caches: [] }, fn);
  }
  // A promise's reaction runs in the async context it was made in (this request's), without the
  // AsyncResource that AsyncLocalStorage.snapshot() makes for each (1.3 % of a small read).
  return batch.starts.then((checked) => requests.run(checked, fn));
}

/** The requests that arrived in this turn wait for its end, when they start together. */
interface Batch {
  readonly starts: Promise<Checked>;
}
let arriving: Batch | undefined;

/**
 * Writers that change no record a RecordCache keeps (grants, clients, token families, profiles and
 * their content; nor, through a trigger, anything they are read from): a commit of these alone
 * leaves the cache as it is. A token refresh commits only these (its rotation and audit event), so
 * the next refresh of any family finds its client, family and grants kept (issue 27). Any other
 * writer, or one added later and not listed, clears the cache at its commit: a wrong omission
 * here costs reads, a wrong entry would serve a stale record.
 */
export const KEEPS_RECORDS: ReadonlySet<string> = new Set<keyof StoreWriter>([
  'appendAudit',
  'appendChange',
  'insertRefreshToken',
  'rotateRefreshToken',
  // A refresh chain (refresh_chains) is never kept: it is read anew at every rotation.
  'insertRefreshChain',
  'advanceRefreshChain',
  'insertSession',
  'deleteSession',
  // A2A tasks (a2a_tasks, no trigger): a blocking SendMessage saves its task, and the next send
  // under the same grant need not read its grant and profile again.
  'putA2aTask',
  'trimA2aTasksOf',
  'pruneA2aTasks',
  'deleteA2aTasksOf',
  'deleteA2aTasksReading',
]);
