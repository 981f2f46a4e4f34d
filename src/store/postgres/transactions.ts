import type pg from 'pg';
import type { InProcessChangeFeed } from '../in-process-change-feed.ts';
import type { OpenState } from '../open-state.ts';
import type { TransactionScope } from '../store.ts';
import { isUnaudited, newTxState, type TxState } from '../tx-shell.ts';
import { beginStatement } from './locks.ts';
import type { NoticedCache } from './record-cache.ts';
import type { WriterGate } from './writer-gate.ts';

type Client = pg.PoolClient;

/** A transaction's state (tx-shell.ts), and what this driver does at its COMMIT. */
export interface PgTxState extends TxState {
  /** Whether it holds the outbox's and the audit log's locks (taken at its first append to either). */
  sequenced: boolean;
  /** Whether it wrote a table an instance keeps in memory (record-cache.ts). */
  wroteCached: boolean;
  /**
   * BEGIN and the scope's locks, until they are sent: with the first write's savepoint (one round
   * trip for both), or before the first read. A transaction that made no call sends nothing.
   */
  pendingBegin: string | undefined;
}

/** Runs `work` in one transaction of `scope` on one pooled client. */
export type TransactionRunner = <T>(
  scope: TransactionScope | undefined,
  work: (client: Client, state: PgTxState) => Promise<T>,
) => Promise<T>;

interface RunnerParts {
  readonly pool: pg.Pool;
  readonly writers: WriterGate;
  readonly schema: string;
  readonly channel: string;
  readonly cache: NoticedCache;
  readonly feed: InProcessChangeFeed;
  readonly open: OpenState;
}

/**
 * Transactions as this store runs them: in the queue of their scope, on one pooled client; COMMIT,
 * then the change events they appended go to the feed. Any error rolls back; a client whose
 * ROLLBACK failed is discarded rather than returned to the pool.
 */
export function transactionRunner({
  pool,
  writers,
  schema,
  channel,
  cache,
  feed,
  open,
}: RunnerParts): TransactionRunner {
  return (scope, work) =>
    writers.run(scopeKey(scope), async () => {
      open.assertOpen();
      const state = newPgTxState(schema, scope);
      return onPooledClient(pool, async (client, discard) => {
        const result = await workThenCommit(client, channel, state, work, discard);
        if (state.wroteCached) cache.dropAll();
        feed.publish(state.changes);
        return result;
      });
    });
}

function newPgTxState(schema: string, scope: TransactionScope | undefined): PgTxState {
  return {
    ...newTxState(isUnaudited(scope)),
    sequenced: false,
    wroteCached: false,
    pendingBegin: beginStatement(schema, scope),
  };
}

/** `use` on a pooled client, released after; `discard(error)` has it dropped instead of reused. */
async function onPooledClient<T>(
  pool: pg.Pool,
  use: (client: Client, discard: (error: Error) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await use(client, (error) => {
      broken = error;
    });
  } finally {
    client.release(broken);
  }
}

/**
 * `work`, then COMMIT; when it throws, ROLLBACK (a failed ROLLBACK discards the client) and the
 * error goes on. Nothing is sent to end a transaction that never sent its BEGIN.
 */
async function workThenCommit<T>(
  client: Client,
  channel: string,
  state: PgTxState,
  work: (client: Client, state: PgTxState) => Promise<T>,
  discard: (error: Error) => void,
): Promise<T> {
  try {
    const result = await work(client, state);
    if (state.pendingBegin === undefined) await client.query(commitStatement(client, channel, state));
    return result;
  } catch (error) {
    if (state.pendingBegin === undefined) {
      await client.query('ROLLBACK').catch((e: unknown) => {
        discard(e instanceof Error ? e : new Error(String(e)));
      });
    }
    throw error;
  } finally {
    state.active = false;
  }
}

/**
 * The statements that end a transaction, as one simple query (one round trip): the notification
 * of its last change event (other instances learn of the commit from it: change-notices.ts), then
 * COMMIT. A transaction that holds the outbox's and audit log's locks commits asynchronously, so
 * that they go with the COMMIT before its WAL is flushed; the flush is then waited for outside
 * every lock, before this instance answers anyone, by a transactional message in the query's next
 * (implicit, synchronous) transaction, which commits only once the WAL before it is flushed.
 * (Another instance may see the NOTIFY an instant before the flush: docs/store.md.)
 */
function commitStatement(client: pg.ClientBase, channel: string, state: PgTxState): string {
  const last = state.changes.at(-1);
  const notify =
    last === undefined ? '' : `SELECT pg_notify(${client.escapeLiteral(channel)}, '${last.seq}'); `;
  return state.sequenced
    ? `${notify}SET LOCAL synchronous_commit = off; COMMIT; SELECT pg_logical_emit_message(true, 'ppx', '')`
    : `${notify}COMMIT`;
}

/** The in-process queue a transaction of `scope` waits in. */
function scopeKey(scope: TransactionScope | undefined): string {
  if (scope === undefined) return '';
  if ('subject' in scope) return `s${scope.subject}`;
  return 'family' in scope ? `f${scope.family}` : `a${scope.area}`;
}
