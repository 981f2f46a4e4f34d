import type { AuditEvent } from '../../model/audit-event.ts';
import { AuditBatcher } from '../audit-batch.ts';
import { InProcessChangeFeed } from '../in-process-change-feed.ts';
import { Mutex } from '../mutex.ts';
import { STORE_READERS, STORE_WRITERS, type Store, type StoreReader, type StoreWriter } from '../store.ts';
import { facade, inSavepoint, publishedBy, type Runner, TransactionGuard } from '../tx-shell.ts';
import { Checkpointer } from './checkpointer.ts';
import { type Connections, openConnections } from './connections.ts';
import { groupCommit } from './group-commit.ts';
import type { SqliteQueries } from './queries.ts';

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
export async function openSqliteStore(path: string): Promise<Store> {
  const connections = openConnections(path);
  const { writer, reader, write, warm, control } = connections;
  const mutex = new Mutex();
  const guard = new TransactionGuard();
  // A `:memory:` database has no WAL to checkpoint.
  const checkpointer = reader === writer ? undefined : new Checkpointer(path, writer);
  let closed = false;
  const assertOpen = (): void => {
    if (closed) throw new Error('store is closed');
  };
  const afterCommit = (): void => {
    warm.forgetRecords();
    checkpointer?.committed();
  };
  const rollback = (): void => {
    // Some errors make SQLite roll back on its own; a second ROLLBACK would mask the original.
    if (writer.isTransaction) writer.exec('ROLLBACK');
    write.forgetKeySets();
    // A statement that failed mid-COMMIT may still have committed; forgetting costs one reload.
    warm.forgetRecords();
  };

  const readOutside = async <T>(call: () => T): Promise<T> => {
    assertOpen();
    return call();
  };
  const readCommitted = outboxReads(connections, mutex, guard, readOutside);
  const feed = new InProcessChangeFeed(
    { listChanges: (query) => readCommitted((q) => q.listChanges(query)) },
    write.latestChangeSeq(),
  );

  /** One write in its own transaction, publishing the change events it committed. */
  const commitOne: Runner<SqliteQueries> = async (name, call) => {
    guard.assertOutside();
    return mutex.run(() => {
      assertOpen();
      control('BEGIN IMMEDIATE');
      let result: unknown;
      try {
        result = call(write);
        control('COMMIT');
        afterCommit();
      } catch (error) {
        rollback();
        throw error;
      }
      feed.publish(publishedBy(name, result));
      return result;
    });
  };

  const transaction = groupCommit({
    connections,
    mutex,
    guard,
    isClosed: () => closed,
    committed: afterCommit,
    rollback,
    publish: (events) => feed.publish(events),
  });
  const audit = new AuditBatcher(auditSink(connections, mutex, () => closed, rollback, checkpointer));

  return {
    ...facade<StoreReader, SqliteQueries>(STORE_READERS, (_name, call) =>
      readOutside(() => call(connections.committed())),
    ),
    ...facade<StoreWriter, SqliteQueries>(STORE_WRITERS, commitOne),
    listChanges: (query) => readCommitted((q) => q.listChanges(query)),
    latestChangeSeq: () => readCommitted((q) => q.latestChangeSeq()),
    appendAudit(events: readonly AuditEvent[]): Promise<void> {
      guard.assertOutside();
      assertOpen();
      return audit.append(events);
    },
    changes: feed,

    // A transaction's scope (store.ts#TransactionScope) is not asked for: one writer serializes all.
    async transaction(fn) {
      guard.assertOutside();
      assertOpen();
      return transaction(fn);
    },

    async close(): Promise<void> {
      await audit.flush();
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
  { writer, write, control }: Connections,
  mutex: Mutex,
  isClosed: () => boolean,
  rollback: () => void,
  checkpointer: Checkpointer | undefined,
) {
  const inTransaction = <T>(work: () => T): T => {
    control('BEGIN IMMEDIATE');
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
    exclusive: (flush: () => Promise<void>) => mutex.run(flush),
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
