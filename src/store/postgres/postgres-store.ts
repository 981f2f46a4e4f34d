import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { AuditEvent } from '../../model/audit-event.ts';
import type { ChangeEvent } from '../../model/change-event.ts';
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
import { changeChannel, listenForChanges } from './change-notices.ts';
import { WRITE_LOCK } from './locks.ts';
import { migratePostgres, quoteIdent } from './migrate.ts';
import { postgresQueries } from './queries.ts';
import { PostgresRateCounter } from './rate-counter.ts';
import { pgTypes, sqlOn } from './sql.ts';

export interface PostgresStoreOptions {
  /** The schema the store's tables live in (created when missing); default: the server's current one. */
  readonly schema?: string;
  /** Connections in the pool (default 10, at least 2). One of them at a time writes, from this instance. */
  readonly poolSize?: number;
  /** statement_timeout of every connection, in ms (default 10 s). */
  readonly statementTimeoutMs?: number;
}

interface TxState {
  active: boolean;
  /** The change events appended so far, published after COMMIT. */
  readonly changes: ChangeEvent[];
}

type Client = pg.PoolClient;

/**
 * Opens a store on the PostgreSQL database at `url`, applying pending migrations first.
 *
 * Concurrency (docs/store.md, "PostgreSQL"): every write transaction, and every autocommit write,
 * begins by taking one transaction-level advisory lock (WRITE_LOCK, keyed by the schema), so writes
 * are serialized across every instance on the database, as the contract requires of transactions;
 * inside one instance they also queue on a mutex first, so that at most one pooled connection per
 * instance holds or waits for the lock and the others stay free for reads. Reads outside a
 * transaction run on the pool without the lock, READ COMMITTED: they see committed data only.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  const pool = new pg.Pool({
    connectionString: url,
    // At least two: a transaction holds one connection, and fn may still read through the store.
    max: Math.max(2, options.poolSize ?? 10),
    types: pgTypes,
    statement_timeout: statementTimeout,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${quoteIdent(options.schema)}` }),
  });
  // An idle connection the server dropped: the pool discards it and opens another when needed.
  pool.on('error', () => undefined);
  let schema = options.schema;
  try {
    const client = await pool.connect();
    try {
      schema ??= await schemaOf(client);
      await migratePostgres(client, schema);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  const beginLocked = `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK}, hashtext(${quoteLiteral(schema)}))`;

  const mutex = new Mutex();
  // Tells a write or transaction started from inside a transaction's fn, which would wait on the
  // mutex (and the lock) its own transaction holds, forever. Such code must use its `tx`.
  const current = new AsyncLocalStorage<TxState>();
  const committed = postgresQueries(sqlOn(pool), { cacheContent: true, writeLock: schema });
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error('store is closed');
  };
  const assertNotInTransaction = (): void => {
    if (current.getStore()?.active) {
      throw new Error('inside transaction(): use the tx argument, not the store (it would deadlock)');
    }
  };

  /**
   * Runs `work` in one transaction on one pooled client, under the write lock; COMMIT, then
   * `published` (still inside the mutex, so events reach the feed in commit order). Any error rolls
   * back; a client whose ROLLBACK failed is discarded rather than returned to the pool.
   */
  const inTransaction = <T>(
    work: (client: Client) => Promise<T>,
    published: (result: T) => readonly ChangeEvent[],
  ): Promise<T> =>
    mutex.run(async () => {
      assertOpen();
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        // One round trip for both (a simple query may hold several statements, but no parameters).
        await client.query(beginLocked);
        let result: T;
        try {
          result = await work(client);
          // Other instances learn of the commit from its notification (change-notices.ts).
          const last = published(result).at(-1);
          if (last !== undefined) await client.query('SELECT pg_notify($1, $2)', [channel, String(last.seq)]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch((e: unknown) => {
            broken = e instanceof Error ? e : new Error(String(e));
          });
          throw error;
        }
        feed.publish(published(result));
        return result;
      } finally {
        client.release(broken);
      }
    });

  const feed = new InProcessChangeFeed(
    { listChanges: (query) => committed.listChanges(query) },
    await committed.latestChangeSeq(),
  );
  const channel = changeChannel(schema);
  // Another instance's commit: read its events from the outbox. After (re)connecting, what was
  // committed meanwhile: the outbox's latest.
  const listener = await listenForChanges(
    {
      connectionString: url,
      ...(options.schema === undefined ? {} : { options: `-c search_path=${quoteIdent(options.schema)}` }),
    },
    channel,
    (seq) => {
      if (seq !== undefined) return feed.committedElsewhere(seq);
      committed.latestChangeSeq().then(
        (latest) => feed.committedElsewhere(latest),
        () => undefined,
      );
    },
  ).catch(async (error: unknown) => {
    await pool.end();
    throw error;
  });

  const makeTx = (client: Client, state: TxState): StoreTx => {
    const queries = postgresQueries(sqlOn(client), { writeLock: schema });
    // fn may start several calls at once; one client runs one statement at a time, and each write's
    // savepoint must not interleave with another's, so the calls of one tx queue here.
    const serial = new Mutex();
    const assertActive = (): void => {
      if (!state.active) throw new Error('transaction is over: tx used after transaction() settled');
    };
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(STORE_READERS)) {
      out[name] = (...args: unknown[]) =>
        serial.run(() => {
          assertActive();
          return (queries[name as keyof StoreReader] as (...a: unknown[]) => Promise<unknown>)(...args);
        });
    }
    // A savepoint per write keeps each method atomic, and the transaction usable, when fn catches
    // its error and goes on (PostgreSQL would otherwise refuse every later statement).
    for (const name of Object.keys(STORE_WRITERS)) {
      out[name] = (...args: unknown[]) =>
        serial.run(async () => {
          assertActive();
          await client.query('SAVEPOINT store_write');
          try {
            const result = await (
              queries[name as keyof StoreWriter] as (...a: unknown[]) => Promise<unknown>
            )(...args);
            await client.query('RELEASE store_write');
            if (name === 'appendChange') state.changes.push(result as ChangeEvent);
            return result;
          } catch (error) {
            await client.query('ROLLBACK TO store_write; RELEASE store_write');
            throw error;
          }
        });
    }
    return out as unknown as StoreTx;
  };

  const readers: Record<string, unknown> = {};
  for (const name of Object.keys(STORE_READERS)) {
    readers[name] = async (...args: unknown[]) => {
      assertOpen();
      return (committed[name as keyof StoreReader] as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  const writers: Record<string, unknown> = {};
  for (const name of Object.keys(STORE_WRITERS)) {
    if (name === 'appendAudit') continue;
    writers[name] = async (...args: unknown[]) => {
      assertNotInTransaction();
      assertOpen();
      return inTransaction(
        (client) =>
          (
            postgresQueries(sqlOn(client), { writeLock: schema })[name as keyof StoreWriter] as (
              ...a: unknown[]
            ) => Promise<unknown>
          )(...args),
        (result) => (name === 'appendChange' ? [result as ChangeEvent] : []),
      );
    };
  }

  // Group commit for the audit log, as on SQLite: the appends of one turn of the event loop share
  // one commit, in the order they were called; each caller waits for the commit that holds its
  // events. The append is one statement (ppx_append_audit, migration 0004, which takes the write
  // lock itself), run on its own as an implicit transaction: one round trip for the whole batch.
  // When the batch fails (a duplicate id), each item is appended on its own, so that the failing
  // one fails alone. The mutex keeps to one the connections of this instance waiting for the lock.
  let auditQueue: { events: readonly AuditEvent[]; done: (error?: unknown) => void }[] = [];
  const append = (events: readonly AuditEvent[]) =>
    mutex.run(async () => {
      assertOpen();
      await committed.appendAudit(events);
    });
  const flushAudit = async (): Promise<void> => {
    const batch = auditQueue;
    auditQueue = [];
    if (batch.length === 0) return;
    if (closed) {
      for (const item of batch) item.done(new Error('store is closed'));
      return;
    }
    try {
      await append(batch.flatMap((item) => item.events));
      for (const item of batch) item.done();
    } catch (first) {
      if (batch.length === 1) return batch[0]!.done(first);
      for (const item of batch) {
        await append(item.events).then(
          () => item.done(),
          (error: unknown) => item.done(error),
        );
      }
    }
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
    ...(readers as unknown as StoreReader),
    ...(writers as unknown as Omit<StoreWriter, 'appendAudit'>),
    appendAudit,
    changes: feed,
    sharedRateCounter: new PostgresRateCounter(pool),

    async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
      assertNotInTransaction();
      assertOpen();
      const state: TxState = { active: true, changes: [] };
      return inTransaction(
        async (client) => {
          try {
            return await current.run(state, () => fn(makeTx(client, state)));
          } finally {
            state.active = false;
          }
        },
        () => state.changes,
      );
    },

    async close(): Promise<void> {
      await flushAudit();
      await mutex.run(async () => {
        if (closed) return;
        closed = true;
        feed.close();
        await listener.close();
        await pool.end();
      });
    },
  };
}

/**
 * The schema a connection without an explicit one works in: its current schema, or, when the URL
 * set a search_path (`?options=-c%20search_path%3Dname`) naming a schema not made yet, the first
 * name on it, which the migrations then create.
 */
async function schemaOf(client: pg.ClientBase): Promise<string> {
  const row = (await client.query("SELECT current_schema() AS s, current_setting('search_path') AS path"))
    .rows[0];
  if (typeof row?.s === 'string') return row.s;
  const first =
    String(row?.path ?? '')
      .split(',')[0]
      ?.trim() ?? '';
  const name = first.startsWith('"') ? first.slice(1, -1).replaceAll('""', '"') : first;
  return name === '' || name === '$user' ? 'public' : name;
}

/** An SQL string literal. */
function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
