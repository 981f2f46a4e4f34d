import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseSync } from 'node:sqlite';
import type { AuditEvent } from '../../model/audit-event.ts';
import type { ChangeDraft, ChangeEvent } from '../../model/change-event.ts';
import { InProcessChangeFeed } from '../in-process-change-feed.ts';
import { Mutex } from '../mutex.ts';
import {
  STORE_READERS,
  STORE_WRITERS,
  type Store,
  type StoreReader,
  type StoreTx,
  type StoreWriter,
} from '../store.ts';
import { Checkpointer } from './checkpointer.ts';
import { migrate } from './migrate.ts';
import { SqliteQueries, type Sync } from './queries.ts';

type Runner = (call: () => unknown) => Promise<unknown>;

/**
 * Async facade over synchronous queries: every listed method goes through `run`, on `queries` or
 * on the queries `queries()` picks at the time of the call.
 */
function facade<T>(
  names: { readonly [K in keyof T]: true },
  queries: Sync<T> | (() => Sync<T>),
  run: Runner,
): T {
  const pick = typeof queries === 'function' ? queries : () => queries;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(names)) {
    if (typeof (pick() as Record<string, unknown>)[name] !== 'function') {
      throw new Error(`SqliteQueries lacks ${name}`);
    }
    out[name] = (...args: unknown[]) =>
      run(() => {
        const target = pick() as unknown as Record<string, (...a: unknown[]) => unknown>;
        return target[name]!.apply(target, args);
      });
  }
  return out as T;
}

interface TxState {
  active: boolean;
  /** The change events appended so far, published after COMMIT. */
  readonly changes: ChangeEvent[];
}

function isMemory(path: string): boolean {
  return path === ':memory:' || path === '' || path.includes('mode=memory');
}

function configure(db: DatabaseSync): void {
  // WAL + synchronous=NORMAL: a committed transaction survives a process kill (only an OS crash or
  // power loss can drop the last commits). busy_timeout covers other processes on the same file.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  cacheSize(db);
}

/**
 * 64 MiB of page cache per connection instead of SQLite's 2 MiB (issue 23, item 5): at 10M claims
 * the B-trees a read and its audit append walk (the log and its five indexes, grants, claims) are
 * four to five levels deep and the appends and checkpoints cycle more pages through the cache, so
 * a small cache sends more page reads to the OS (a system call each). bench:scale, alternating
 * runs with and without: the 10M read cost 1.3-1.7x the 1k one in CPU per request without, 0.8-0.9x
 * with (docs/benchmarks.md, "Ten million claims"). A limit, not an allocation: a small store uses
 * what it holds.
 */
function cacheSize(db: DatabaseSync): void {
  db.exec('PRAGMA cache_size = -65536');
}

/**
 * Opens (creating if needed) an embedded SQLite store at `path`, applying pending migrations.
 *
 * node:sqlite is synchronous and this store holds one write connection, so writes and
 * transactions are serialized by an in-process mutex: an `await` inside `transaction(fn)` would
 * otherwise let another request's statements run inside the open transaction.
 *
 * Reads outside a transaction use a second, read-only connection on the same file, so under WAL
 * they see only committed data and never wait for a writer. A `:memory:` database exists only on
 * its one connection, so there reads share the write connection and can observe the writes of a
 * transaction that is still open (acceptable for tests, which is what `:memory:` is for).
 */
export async function openSqliteStore(path: string): Promise<Store> {
  const writer = new DatabaseSync(path);
  let reader: DatabaseSync = writer;
  try {
    configure(writer);
    migrate(writer);
    if (!isMemory(path)) {
      reader = new DatabaseSync(path, { readOnly: true });
      reader.exec('PRAGMA busy_timeout = 5000');
      cacheSize(reader);
    }
  } catch (error) {
    writer.close();
    throw error;
  }

  const mutex = new Mutex();
  // A `:memory:` database has no WAL to checkpoint.
  const checkpointer = reader === writer ? undefined : new Checkpointer(path, writer);
  // Tells a write or transaction started from inside a transaction's fn, which would wait on the
  // mutex that fn's own transaction holds, forever. Such code must use the `tx` it was given.
  const current = new AsyncLocalStorage<TxState>();
  const writeQueries = new SqliteQueries(writer);
  // The transaction-control statements, prepared once: a group commit runs several per
  // transaction (a savepoint each, and one per write), and exec parses its text every time.
  const control = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  const run = (sql: string): void => {
    let statement = control.get(sql);
    if (statement === undefined) {
      statement = writer.prepare(sql);
      control.set(sql, statement);
    }
    statement.run();
  };
  const readQueries = reader === writer ? writeQueries : new SqliteQueries(reader, { cacheContent: true });
  // Reads outside a transaction go to the write connection whenever no transaction is open on it
  // (node:sqlite is synchronous, so that holds for the whole read), and to the read connection
  // otherwise. Both see exactly the committed data, but the write connection's page cache stays
  // warm: every commit by another connection (the group-committed audit log commits all the time)
  // makes the read connection drop its whole page cache at its next read, so that each point read
  // went back to the file (issue 10: grant, profile and version reads were a quarter of a small
  // read). Its own content cache, like the read connection's, only ever serves committed versions.
  const warmQueries = reader === writer ? writeQueries : new SqliteQueries(writer, { cacheContent: true });
  const committedQueries = (): SqliteQueries => (writer.isTransaction ? readQueries : warmQueries);
  let closed = false;
  const feed = new InProcessChangeFeed(
    { listChanges: (query) => readCommitted(() => readQueries.listChanges(query)) as Promise<ChangeEvent[]> },
    writeQueries.latestChangeSeq(),
  );

  const assertOpen = (): void => {
    if (closed) throw new Error('store is closed');
  };
  const assertNotInTransaction = (): void => {
    if (current.getStore()?.active) {
      throw new Error('inside transaction(): use the tx argument, not the store (it would deadlock)');
    }
  };
  const rollback = (): void => {
    // Some errors make SQLite roll back on its own; a second ROLLBACK would mask the original.
    if (writer.isTransaction) writer.exec('ROLLBACK');
    writeQueries.forgetKeySets();
    // A statement that failed mid-COMMIT may still have committed; forgetting costs one reload.
    warmQueries.forgetRecords();
  };

  const readOutside: Runner = async (call) => {
    assertOpen();
    return call();
  };
  // On `:memory:` reads share the write connection and would see an open transaction's outbox
  // rows, which a rollback then takes back (with their seqs): the outbox is read only between
  // transactions there (and, like a write, not from inside one: it would wait on itself).
  const readCommitted: Runner =
    reader === writer
      ? async (call) => {
          assertNotInTransaction();
          return mutex.run(() => readOutside(call));
        }
      : readOutside;
  /** One write in its own transaction; `published` names the change events it committed. */
  const commitOne = async <T>(
    call: () => T,
    published?: (result: T) => readonly ChangeEvent[],
  ): Promise<T> => {
    assertNotInTransaction();
    return mutex.run(() => {
      assertOpen();
      run('BEGIN IMMEDIATE');
      let result: T;
      try {
        result = call();
        run('COMMIT');
        warmQueries.forgetRecords();
        checkpointer?.committed();
      } catch (error) {
        rollback();
        throw error;
      }
      if (published) feed.publish(published(result));
      return result;
    });
  };
  const writeOutside: Runner = (call) => commitOne(call);

  const makeTx = (state: TxState): StoreTx => {
    const assertActive = (): void => {
      if (!state.active) throw new Error('transaction is over: tx used after transaction() settled');
      // After an error SQLite may have rolled the whole transaction back by itself; going on would
      // run the rest of fn in autocommit mode, committing piecemeal.
      if (!writer.isTransaction) throw new Error('transaction was rolled back by SQLite');
    };
    const readInside: Runner = async (call) => {
      assertActive();
      return call();
    };
    // A savepoint per write keeps each method atomic even when fn catches its error and goes on.
    const writeInside: Runner = async (call) => {
      assertActive();
      run('SAVEPOINT store_write');
      try {
        const result = call();
        run('RELEASE store_write');
        return result;
      } catch (error) {
        if (writer.isTransaction) writer.exec('ROLLBACK TO store_write; RELEASE store_write');
        writeQueries.forgetKeySets();
        throw error;
      }
    };
    const writes = facade<StoreWriter>(STORE_WRITERS, writeQueries, writeInside);
    return {
      ...facade<StoreReader>(STORE_READERS, writeQueries, readInside),
      ...writes,
      // Remembered so that transaction() publishes it after COMMIT, and only then.
      async appendChange(draft: ChangeDraft): Promise<ChangeEvent> {
        const event = await writes.appendChange(draft);
        state.changes.push(event);
        return event;
      },
    };
  };

  // Group commit for transactions: those asked for while the write connection is busy run one
  // after the other, in the order they were asked, inside one SQLite transaction, each in a
  // savepoint of its own, and commit together; each caller's promise settles after that commit
  // (a failing fn is rolled back to its savepoint and fails alone, at once). Serial order and
  // atomicity are a transaction's own; only the commit is shared, and with it the WAL write, which
  // was most of a token refresh (one commit per rotation under load). An idle store commits each
  // transaction alone, as before.
  interface QueuedTx {
    readonly fn: (tx: StoreTx) => Promise<unknown>;
    readonly resolve: (value: unknown) => void;
    readonly reject: (error: unknown) => void;
  }
  let txQueue: QueuedTx[] = [];
  const runTransactions = (): Promise<void> =>
    mutex.run(async () => {
      const batch = txQueue;
      txQueue = [];
      if (closed) {
        for (const item of batch) item.reject(new Error('store is closed'));
        return;
      }
      let done: { item: QueuedTx; result: unknown; state: TxState }[] = [];
      for (const item of batch) {
        const state: TxState = { active: true, changes: [] };
        try {
          if (!writer.isTransaction) run('BEGIN IMMEDIATE');
          run('SAVEPOINT store_tx');
        } catch (error) {
          // The database is busy (another process) or broken: this one fails, the next tries again.
          item.reject(error);
          continue;
        }
        try {
          const result = await current.run(state, () => item.fn(makeTx(state)));
          run('RELEASE store_tx');
          done.push({ item, result, state });
        } catch (error) {
          if (writer.isTransaction) {
            writer.exec('ROLLBACK TO store_tx; RELEASE store_tx');
          } else {
            // SQLite rolled the whole transaction back on its own: the batch's earlier ones too.
            for (const d of done) d.item.reject(error);
            done = [];
          }
          writeQueries.forgetKeySets();
          item.reject(error);
        } finally {
          state.active = false;
        }
      }
      try {
        if (writer.isTransaction) run('COMMIT');
        warmQueries.forgetRecords();
        checkpointer?.committed();
      } catch (error) {
        rollback();
        for (const d of done) d.item.reject(error);
        return;
      }
      // Still inside the mutex, right after COMMIT: events reach the feed in commit order.
      for (const d of done) {
        feed.publish(d.state.changes);
        d.item.resolve(d.result);
      }
    });

  // Group commit for the audit log: every read appends an event before it answers, so under load
  // the events of requests arriving in the same turn of the event loop share one transaction.
  // Each caller still waits for the commit that holds its event. The batch is written in one go;
  // only when that fails (a duplicate id) is it written again item by item, each in a savepoint,
  // so that the failing one fails alone: the common case costs BEGIN, the inserts, COMMIT.
  let auditQueue: { events: readonly AuditEvent[]; done: (error?: unknown) => void }[] = [];
  const writeAuditItems = (batch: typeof auditQueue, isolate: boolean): unknown[] => {
    const outcomes: unknown[] = [];
    run('BEGIN IMMEDIATE');
    if (!isolate) writeQueries.appendAudit(batch.flatMap((item) => item.events));
    for (const item of batch) {
      if (!isolate) {
        outcomes.push(undefined);
        continue;
      }
      writer.exec('SAVEPOINT audit_event');
      try {
        writeQueries.appendAudit(item.events);
        writer.exec('RELEASE audit_event');
        outcomes.push(undefined);
      } catch (error) {
        writer.exec('ROLLBACK TO audit_event; RELEASE audit_event');
        writeQueries.forgetKeySets();
        outcomes.push(error);
      }
    }
    run('COMMIT');
    checkpointer?.committed();
    return outcomes;
  };
  const flushAudit = (): Promise<void> => {
    const batch = auditQueue;
    auditQueue = [];
    if (batch.length === 0) return Promise.resolve();
    return mutex.run(() => {
      if (closed) {
        for (const item of batch) item.done(new Error('store is closed'));
        return;
      }
      let outcomes: unknown[];
      try {
        outcomes = writeAuditItems(batch, false);
      } catch (first) {
        rollback();
        if (batch.length === 1) {
          for (const item of batch) item.done(first);
          return;
        }
        try {
          outcomes = writeAuditItems(batch, true);
        } catch (error) {
          rollback();
          for (const item of batch) item.done(error);
          return;
        }
      }
      for (const [i, item] of batch.entries()) item.done(outcomes[i]);
    });
  };
  const appendAudit = (events: readonly AuditEvent[]): Promise<void> => {
    assertNotInTransaction();
    assertOpen();
    return new Promise<void>((resolve, reject) => {
      if (auditQueue.length === 0) setImmediate(() => void flushAudit());
      auditQueue.push({ events, done: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  };

  return {
    ...facade<StoreReader>(STORE_READERS, committedQueries, readOutside),
    ...facade<StoreWriter>(STORE_WRITERS, writeQueries, writeOutside),
    listChanges: (query) => readCommitted(() => readQueries.listChanges(query)) as Promise<ChangeEvent[]>,
    latestChangeSeq: () => readCommitted(() => readQueries.latestChangeSeq()) as Promise<number>,
    appendChange: (draft) =>
      commitOne(
        () => writeQueries.appendChange(draft),
        (event) => [event],
      ),
    appendAudit,
    changes: feed,

    async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
      assertNotInTransaction();
      assertOpen();
      return new Promise<T>((resolve, reject) => {
        txQueue.push({ fn, resolve, reject } as QueuedTx);
        // The first of a batch books a turn of the mutex after this turn of the event loop, so that
        // the transactions of requests handled meanwhile join it (as the audit log's group commit).
        if (txQueue.length === 1) setImmediate(() => void runTransactions());
      });
    },

    async close(): Promise<void> {
      await flushAudit();
      await checkpointer?.stop();
      await mutex.run(() => {
        if (closed) return;
        closed = true;
        feed.close();
        if (reader !== writer) reader.close();
        writer.close();
      });
    },
  };
}
