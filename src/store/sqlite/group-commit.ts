import type { ChangeEvent } from '../../model/change-event.ts';
import type { Mutex } from '../mutex.ts';
import type { StoreTx, TransactionScope } from '../store.ts';
import {
  isUnaudited,
  newTxState,
  type Savepoint,
  type TransactionGuard,
  type TxState,
  txFacade,
} from '../tx-shell.ts';
import type { Connections } from './connections.ts';
import { KEEPS_RECORDS } from './record-cache.ts';

export interface GroupCommitDeps {
  readonly connections: Connections;
  readonly mutex: Mutex;
  readonly guard: TransactionGuard;
  readonly isClosed: () => boolean;
  /**
   * After a COMMIT on the writer (caches, checkpoints); `changedRecords` unless every write it
   * committed leaves the kept records as they were (record-cache.ts#KEEPS_RECORDS).
   */
  readonly committed: (changedRecords: boolean) => void;
  /** After a COMMIT failed: roll back what is left and forget what it undid. */
  readonly rollback: () => void;
  /** Publishes a committed transaction's change events, in commit order. */
  readonly publish: (events: readonly ChangeEvent[]) => void;
  /**
   * Runs in the write mutex before a batch begins (the audit journal's move), waited for when a
   * promise; not before a batch whose every transaction promised not to touch the audit log.
   */
  readonly beforeWrite?: () => void | Promise<void>;
}

interface QueuedTx {
  readonly fn: (tx: StoreTx) => Promise<unknown>;
  /**
   * A family's transaction (a refresh rotation), or one whose scope says `small` (an A2A task's
   * save): its savepoints are small, and a batch of only these journals them in memory
   * (connections.ts#begin).
   */
  readonly small: boolean;
  /** Its scope says `unaudited`: a batch of only these does not move the audit journal first. */
  readonly unaudited: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * `transaction(fn)` with group commit: transactions asked for while the write connection is busy
 * run one after the other, in the order they were asked, inside one SQLite transaction, each in a
 * savepoint of its own, and commit together; each caller's promise settles after that commit (a
 * failing fn is rolled back to its savepoint and fails alone, at once). Serial order and atomicity
 * are a transaction's own; only the commit is shared, and with it the WAL write, which was most of
 * a token refresh (one commit per rotation under load). An idle store commits each transaction
 * alone, one turn of the event loop later. The caller checks that the store is open and that it
 * is not called from inside a transaction.
 */
export function groupCommit(
  deps: GroupCommitDeps,
): <T>(fn: (tx: StoreTx) => Promise<T>, scope: TransactionScope | undefined) => Promise<T> {
  const { connections, mutex, guard } = deps;
  const { writer, control, write } = connections;
  // A savepoint per write keeps each method atomic even when fn catches its error and goes on.
  const savepoint: Savepoint = {
    begin: () => control('SAVEPOINT store_write'),
    release: () => control('RELEASE store_write'),
    rollbackTo: () => {
      if (writer.isTransaction) writer.exec('ROLLBACK TO store_write; RELEASE store_write');
      write.forgetKeySets();
    },
  };
  /** Whether a write of the batch under way may have changed a kept record. */
  let changedRecords = false;
  const makeTx = (state: TxState): StoreTx =>
    txFacade({
      state,
      queries: write,
      savepoint,
      wrote: (method) => {
        if (!KEEPS_RECORDS.has(method)) changedRecords = true;
      },
      // After an error SQLite may have rolled the whole transaction back by itself; going on would
      // run the rest of fn in autocommit mode, committing piecemeal.
      check: () => {
        if (!writer.isTransaction) throw new Error('transaction was rolled back by SQLite');
      },
    });

  let queue: QueuedTx[] = [];
  /** Runs the queued transactions in savepoints of one transaction; which ones are still to commit. */
  const runEach = async (batch: readonly QueuedTx[]) => {
    let done: { item: QueuedTx; result: unknown; state: TxState }[] = [];
    const small = batch.every((item) => item.small);
    for (const item of batch) {
      const state = newTxState(item.unaudited);
      try {
        if (!writer.isTransaction) connections.begin(small);
        control('SAVEPOINT store_tx');
      } catch (error) {
        // The database is busy (another process) or broken: this one fails, the next tries again.
        item.reject(error);
        continue;
      }
      try {
        const result = await guard.run(state, () => item.fn(makeTx(state)));
        control('RELEASE store_tx');
        done.push({ item, result, state });
      } catch (error) {
        if (writer.isTransaction) {
          writer.exec('ROLLBACK TO store_tx; RELEASE store_tx');
        } else {
          // SQLite rolled the whole transaction back on its own: the batch's earlier ones too.
          for (const d of done) d.item.reject(error);
          done = [];
        }
        write.forgetKeySets();
        item.reject(error);
      } finally {
        state.active = false;
      }
    }
    return done;
  };
  const runQueued = (): Promise<void> =>
    mutex.run(async () => {
      const batch = queue;
      queue = [];
      if (deps.isClosed()) {
        for (const item of batch) item.reject(new Error('store is closed'));
        return;
      }
      // The log's order is the append order: a batch that may append events moves those that wait
      // first. One that cannot (an A2A task's save, ~5,000 a second under load) leaves them to the
      // journal's own moves, and saves a commit (docs/benchmarks.md, "A2A: what the task's save costs").
      const moving = batch.every((item) => item.unaudited) ? undefined : deps.beforeWrite?.();
      if (moving !== undefined) await moving;
      changedRecords = false;
      const done = await runEach(batch);
      try {
        if (writer.isTransaction) control('COMMIT');
        deps.committed(changedRecords);
      } catch (error) {
        deps.rollback();
        for (const d of done) d.item.reject(error);
        return;
      }
      // Still inside the mutex, right after COMMIT: events reach the feed in commit order.
      for (const d of done) {
        deps.publish(d.state.changes);
        d.item.resolve(d.result);
      }
    });

  return <T>(fn: (tx: StoreTx) => Promise<T>, scope: TransactionScope | undefined) =>
    new Promise<T>((resolve, reject) => {
      const small = scope !== undefined && ('family' in scope || ('small' in scope && scope.small === true));
      queue.push({ fn, small, unaudited: isUnaudited(scope), resolve, reject } as QueuedTx);
      // The first of a batch books a turn of the mutex after this turn of the event loop, so that
      // the transactions of requests handled meanwhile join it (as the audit log's group commit).
      if (queue.length === 1) setImmediate(() => void runQueued());
    });
}
