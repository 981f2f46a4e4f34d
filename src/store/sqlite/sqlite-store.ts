import type { AuditEvent } from '../../model/audit-event.ts';
import { AuditBatcher } from '../audit-batch.ts';
import { InProcessChangeFeed } from '../in-process-change-feed.ts';
import { Mutex } from '../mutex.ts';
import { OpenState } from '../open-state.ts';
import type { Store, StoreReader, StoreWriter } from '../store.ts';
import { STORE_READERS, STORE_WRITERS } from '../store-names.ts';
import { facade, inSavepoint, publishedBy, type Runner, TransactionGuard } from '../tx-shell.ts';
import { AuditJournal, recoverAuditJournals } from './audit-journal.ts';
import { AuditMover } from './audit-mover.ts';
import { Checkpointer } from './checkpointer.ts';
import { type Connections, openConnections } from './connections.ts';
import { groupCommit } from './group-commit.ts';
import type { SqliteQueries } from './queries.ts';
import { freshReads, KEEPS_RECORDS } from './record-cache.ts';

export interface SqliteStoreOptions {
  /**
   * The journal's thread (audit-mover.ts): the events moved on the event loop before it starts,
   * and the fewest a move hands it. Tests set both to 0, to have it from the first move on.
   */
  readonly auditMover?: { readonly after?: number; readonly atLeast?: number };
}

/**
 * Opens (creating if needed) an embedded SQLite store at `path`, applying pending migrations.
 *
 * node:sqlite is synchronous and this store holds one write connection, so writes and
 * transactions are serialized by an in-process mutex: an `await` inside `transaction(fn)` would
 * otherwise let another request's statements run inside the open transaction.
 *
 * Reads outside a transaction see only committed data and never wait for a writer
 * (connections.ts). A `:memory:` database exists only on its one connection, so there reads share
 * the write connection and can observe the writes of a transaction that is still open (acceptable
 * for tests, which is what `:memory:` is for).
 */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<Store> {
  const connections = openConnections(path);
  const { writer, reader } = connections;
  // A `:memory:` database has no WAL to checkpoint.
  const checkpointer = reader === writer ? undefined : new Checkpointer(path, writer);
  // A write waits its turn, and then for the checkpoint thread to let go of the file's write lock.
  const mutex = new Mutex(() => checkpointer?.whileEmptying());
  const guard = new TransactionGuard();
  const open = new OpenState();
  const ends = transactionEnds(connections, checkpointer);
  const readOutside = async <T>(call: () => T): Promise<T> => {
    open.assertOpen();
    return call();
  };
  const readCommitted = outboxReads(connections, mutex, guard, readOutside);
  const feed = new InProcessChangeFeed(
    { listChanges: (query) => readCommitted((q) => q.listChanges(query)) },
    connections.write.latestChangeSeq(),
  );
  const sink = auditSink(connections, mutex, open.isClosed, ends.rollback, checkpointer);
  // A file's audit log is appended through a journal (audit-journal.ts); `:memory:` has no file
  // beside it and group-commits as PostgreSQL does.
  const mover = reader === writer ? undefined : new AuditMover(path, options.auditMover);
  const journal = reader === writer ? undefined : openJournal(path, connections, sink, mover, checkpointer);
  const audit = journal === undefined ? new AuditBatcher(sink) : undefined;
  // Every write moves the journal first, in the write mutex: the log's order stays the append order.
  const beforeWrite = () => journal?.beforeWrite();
  const writeOne = autocommitWrites({ connections, mutex, guard, open, ends, feed, beforeWrite });
  const transaction = groupCommit({
    beforeWrite,
    connections,
    mutex,
    guard,
    isClosed: open.isClosed,
    committed: ends.committed,
    rollback: ends.rollback,
    publish: (events) => feed.publish(events),
  });

  return {
    ...facade<StoreReader, SqliteQueries>(STORE_READERS, async (name, call) => {
      // The journal's events are part of the log: moved before it is read.
      if (name === 'listAudit') await journal?.flush();
      return readOutside(() => call(connections.committed()));
    }),
    ...facade<StoreWriter, SqliteQueries>(STORE_WRITERS, writeOne),
    listChanges: (query) => readCommitted((q) => q.listChanges(query)),
    latestChangeSeq: () => readCommitted((q) => q.latestChangeSeq()),
    appendAudit(events: readonly AuditEvent[]): Promise<void> {
      guard.assertOutside();
      open.assertOpen();
      if (audit !== undefined) return audit.append(events);
      try {
        return journal?.append(events) ?? Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    },
    changes: feed,
    freshReads,

    // A transaction's scope (store.ts#TransactionScope) takes no lock: one writer serializes all.
    // What it promises shapes the group commit (group-commit.ts#QueuedTx).
    async transaction(fn, scope) {
      guard.assertOutside();
      open.assertOpen();
      return transaction(fn, scope);
    },

    async close(): Promise<void> {
      await audit?.flush();
      await checkpointer?.stop();
      await mutex.run(async () => {
        if (!open.markClosed()) return;
        journal?.close();
        await mover?.stop();
        feed.close();
        connections.close();
      });
    },
  };
}

/** What follows a COMMIT, and how a failed transaction is rolled back, on the write connection. */
interface TransactionEnds {
  /** `changedRecords` unless every write committed keeps the records (record-cache.ts#KEEPS_RECORDS). */
  readonly committed: (changedRecords: boolean) => void;
  readonly rollback: () => void;
}

function transactionEnds(
  { writer, write, warm, read }: Connections,
  checkpointer: Checkpointer | undefined,
): TransactionEnds {
  return {
    committed: (changedRecords) => {
      // Both caches: a request reading on the read connection may have checked its data_version
      // before this commit (record-cache.ts#freshReads).
      if (changedRecords) {
        warm.forgetRecords();
        read.forgetRecords();
      }
      checkpointer?.committed();
    },
    rollback: () => {
      // Some errors make SQLite roll back on its own; a second ROLLBACK would mask the original.
      if (writer.isTransaction) writer.exec('ROLLBACK');
      write.forgetKeySets();
      // A statement that failed mid-COMMIT may still have committed; forgetting costs one reload.
      warm.forgetRecords();
    },
  };
}

/** One write in its own transaction, under the write mutex, publishing the change events it committed. */
function autocommitWrites({
  connections: { write, control, begin },
  mutex,
  guard,
  open,
  ends,
  feed,
  beforeWrite,
}: {
  connections: Connections;
  mutex: Mutex;
  guard: TransactionGuard;
  open: OpenState;
  ends: TransactionEnds;
  feed: InProcessChangeFeed;
  beforeWrite: () => void | Promise<void>;
}): Runner<SqliteQueries> {
  return async (name, call) => {
    guard.assertOutside();
    return mutex.run(async () => {
      open.assertOpen();
      const moving = beforeWrite();
      if (moving !== undefined) await moving;
      open.assertOpen();
      begin(false);
      let result: unknown;
      try {
        result = call(write);
        control('COMMIT');
        ends.committed(!KEEPS_RECORDS.has(name));
      } catch (error) {
        ends.rollback();
        throw error;
      }
      feed.publish(publishedBy(name, result));
      return result;
    });
  };
}

/**
 * How the change outbox is read outside a transaction. On `:memory:` reads share the write
 * connection and would see an open transaction's outbox rows, which a rollback then takes back
 * (with their seqs): the outbox is read only between transactions there (and, like a write, not
 * from inside one: it would wait on itself). Elsewhere, as any read, on the read connection.
 */
function outboxReads(
  { reader, writer, read }: Connections,
  mutex: Mutex,
  guard: TransactionGuard,
  readOutside: <T>(call: () => T) => Promise<T>,
): <T>(call: (queries: SqliteQueries) => T) => Promise<T> {
  if (reader !== writer) return (call) => readOutside(() => call(read));
  return async (call) => {
    guard.assertOutside();
    return mutex.run(() => readOutside(() => call(read)));
  };
}

/**
 * The audit log's group commit on SQLite (audit-batch.ts): a flush holds the write mutex for the
 * batch and its retry; the batch is BEGIN, one INSERT call for every event, COMMIT; the retry is
 * one transaction with a savepoint per caller.
 */
function auditSink(
  { writer, write, control, begin }: Connections,
  mutex: Mutex,
  isClosed: () => boolean,
  rollback: () => void,
  checkpointer: Checkpointer | undefined,
) {
  const inTransaction = <T>(work: () => T): T => {
    // Audit events only, appended at the log's end: small savepoints (connections.ts#begin).
    begin(true);
    try {
      const result = work();
      control('COMMIT');
      checkpointer?.committed();
      return result;
    } catch (error) {
      rollback();
      throw error;
    }
  };
  const eventSavepoint = {
    begin: () => writer.exec('SAVEPOINT audit_event'),
    release: () => writer.exec('RELEASE audit_event'),
    rollbackTo: () => {
      writer.exec('ROLLBACK TO audit_event; RELEASE audit_event');
      write.forgetKeySets();
    },
  };
  return {
    inTransaction,
    exclusive: <T>(flush: () => T | Promise<T>) => mutex.run(flush),
    isClosed,
    writeAll: (events: readonly AuditEvent[]) => inTransaction(() => write.appendAudit(events)),
    writeEach: (items: readonly (readonly AuditEvent[])[]) =>
      inTransaction(() =>
        items.map((events) => {
          try {
            inSavepoint(eventSavepoint, () => write.appendAudit(events));
            return undefined;
          } catch (error) {
            return error;
          }
        }),
      ),
  };
}

/**
 * The journal of this store's audit appends, next to the file (`<file>-audit/`), after moving the
 * journals that processes now gone left there (audit-journal.ts).
 */
function openJournal(
  path: string,
  { writer, write }: Connections,
  sink: ReturnType<typeof auditSink>,
  mover: AuditMover | undefined,
  checkpointer: Checkpointer | undefined,
): AuditJournal {
  const dir = `${path}-audit`;
  const known = writer.prepare('SELECT 1 FROM audit_events WHERE event_id = ?');
  const has = (eventId: string) => known.get(eventId) !== undefined;
  recoverAuditJournals(dir, {
    inTransaction: sink.inTransaction,
    has,
    insert: (events) => write.appendAudit(events),
  });
  return new AuditJournal(dir, {
    exclusive: (move) => sink.exclusive(move),
    writeAll: (events) => sink.writeAll(events),
    writeEach: (items) => sink.writeEach(items),
    has,
    moveAway: (parts, count) =>
      mover?.move(parts, count)?.then((committed) => {
        // A commit on the file, as the writer's own are (the checkpointer counts them).
        if (committed) checkpointer?.committed();
        return committed;
      }),
  });
}
