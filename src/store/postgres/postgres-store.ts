import pg from 'pg';
import type { AuditEvent } from '../../model/audit-event.ts';
import { AuditBatcher } from '../audit-batch.ts';
import { InProcessChangeFeed } from '../in-process-change-feed.ts';
import { OpenState } from '../open-state.ts';
import type { Store, StoreReader, StoreTx, StoreWriter, TransactionScope } from '../store.ts';
import { STORE_READERS, STORE_WRITERS } from '../store-names.ts';
import { facade, TransactionGuard } from '../tx-shell.ts';
import { type ChangeListener, changeChannel, listenForChanges } from './change-notices.ts';
import { LockWaits } from './lock-waits.ts';
import { migratePostgres, quoteIdent } from './migrate.ts';
import { PostgresProofLedger } from './proof-ledger.ts';
import { postgresQueries } from './queries.ts';
import { PostgresRateCounter } from './rate-counter.ts';
import { CACHED_READERS, NoticedCache } from './record-cache.ts';
import { pgTypes, sqlOn } from './sql.ts';
import { type TransactionRunner, transactionRunner } from './transactions.ts';
import { type TxOnClient, transactionCalls, WRITER_SCOPES } from './tx-calls.ts';
import { WriterGate } from './writer-gate.ts';

export interface PostgresStoreOptions {
  /** The schema the store's tables live in (created when missing); default: the server's current one. */
  readonly schema?: string;
  /** Connections in the pool (default 10, at least 3). Two of them are always left to reads. */
  readonly poolSize?: number;
  /** statement_timeout of every connection, in ms (default 10 s). */
  readonly statementTimeoutMs?: number;
}

/** The PostgreSQL store: the contract, and what benchmarks and tests look at beside it. */
export interface PostgresStore extends Store {
  /** How often and how long this instance's transactions waited for the store's locks. */
  lockWaits(): { readonly locks: number; readonly waitedMs: number };
  /** The backend pid of the connection listening for notices; undefined while it is down. */
  listenerPid(): number | undefined;
}

/**
 * Opens a store on the PostgreSQL database at `url`, applying pending migrations first.
 *
 * Concurrency (docs/store.md, "Concurrency, operation by operation"): no lock for the whole
 * schema. A transaction takes, at BEGIN, the locks of its scope (store.ts#TransactionScope): its
 * subject's or its area's, or, unscoped, the schema's write lock alone. The outbox's seq and the
 * audit log's seq and clock are global, so a transaction takes their two locks at its first
 * change event or audit event, and commits asynchronously: the locks go with the COMMIT, before the
 * WAL flush, which a second synchronous commit then waits for outside any lock, before anyone is
 * answered. Reads take no lock, READ COMMITTED, and are kept in memory on every instance until a
 * notice says they changed (record-cache.ts). Inside one instance, transactions of one scope queue
 * on a mutex, and at most poolSize - 2 connections write at once, so reads always find a connection.
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const { pool, poolSize, searchPath } = openPool(url, options);
  const schema = await migrateOrEnd(pool, options.schema);
  const open = new OpenState();
  const writers = new WriterGate(poolSize - 2);
  const waits = new LockWaits();
  // Tells a write or transaction started from inside a transaction's fn, which could wait on the
  // locks its own transaction holds, forever. Such code must use its `tx`.
  const guard = new TransactionGuard();
  const committed = postgresQueries(sqlOn(pool), { cacheContent: true, writeLock: schema, autocommit: true });
  const cache = new NoticedCache(() => listener.sync());
  const feed = new InProcessChangeFeed(
    { listChanges: (query) => committed.listChanges(query) },
    await committed.latestChangeSeq(),
  );
  const channel = changeChannel(schema);
  const listener = await listenOrEnd(pool, { connectionString: url, ...searchPath }, channel, {
    feed,
    cache,
    committed,
  });
  const inTransaction = transactionRunner({ pool, writers, schema, channel, cache, feed, open });
  const txOn = transactionCalls(schema, waits);
  const audit = auditGroupCommit(committed, open);

  return {
    ...cachedReaders(committed, cache, open),
    ...autocommitWriters(guard, open, inTransaction, txOn),
    appendAudit(events: readonly AuditEvent[]): Promise<void> {
      guard.assertOutside();
      open.assertOpen();
      return audit.append(events);
    },
    changes: feed,
    sharedRateCounter: new PostgresRateCounter(pool),
    sharedProofLedger: new PostgresProofLedger(pool),
    freshReads: (fn) => cache.fresh(fn),
    lockWaits: () => waits.snapshot(),
    listenerPid: () => listener.pid(),

    async transaction<T>(fn: (tx: StoreTx) => Promise<T>, scope?: TransactionScope): Promise<T> {
      guard.assertOutside();
      open.assertOpen();
      return inTransaction(scope, (client, state) => guard.run(state, () => fn(txOn(client, state))));
    },

    async close(): Promise<void> {
      await audit.flush();
      await writers.idle();
      if (!open.markClosed()) return;
      feed.close();
      await listener.close();
      await pool.end();
    },
  } satisfies PostgresStore;
}

/** The connection pool: `poolSize` connections (at least 3), each with the statement timeout. */
function openPool(
  url: string,
  options: PostgresStoreOptions,
): { pool: pg.Pool; poolSize: number; searchPath: { options?: string } } {
  const poolSize = Math.max(3, options.poolSize ?? 10);
  const searchPath =
    options.schema === undefined ? {} : { options: `-c search_path=${quoteIdent(options.schema)}` };
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: pgTypes,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    ...searchPath,
  });
  // An idle connection the server dropped: the pool discards it and opens another when needed.
  pool.on('error', () => undefined);
  return { pool, poolSize, searchPath };
}

/** Applies pending migrations to `schema` (the connection's own when undefined) and names it; a failure ends the pool. */
async function migrateOrEnd(pool: pg.Pool, schema: string | undefined): Promise<string> {
  try {
    const client = await pool.connect();
    try {
      const named = schema ?? (await schemaOf(client));
      await migratePostgres(client, named);
      return named;
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/**
 * Listens for other instances' notices: a commit's seq goes to the feed, a changed row drops its
 * cached copy, and on (re)connecting the outbox's latest seq is caught up. A failure ends the pool.
 */
async function listenOrEnd(
  pool: pg.Pool,
  config: pg.ClientConfig,
  channel: string,
  { feed, cache, committed }: { feed: InProcessChangeFeed; cache: NoticedCache; committed: StoreTx },
): Promise<ChangeListener> {
  return listenForChanges(config, channel, {
    seq: (seq) => feed.committedElsewhere(seq),
    row: (notice) => cache.drop(notice),
    up: () => {
      cache.up();
      // What was committed while no one listened: the outbox's latest.
      committed.latestChangeSeq().then(
        (latest) => feed.committedElsewhere(latest),
        () => undefined,
      );
    },
    down: () => cache.down(),
  }).catch(async (error: unknown) => {
    await pool.end();
    throw error;
  });
}

/** The store's readers on committed data; those of CACHED_READERS through the noticed cache. */
function cachedReaders(committed: StoreTx, cache: NoticedCache, open: OpenState): StoreReader {
  const readers: Record<string, unknown> = {};
  for (const name of Object.keys(STORE_READERS) as (keyof StoreReader)[]) {
    const read = committed[name] as (...a: unknown[]) => Promise<unknown>;
    const keyOf = CACHED_READERS[name] as ((...a: unknown[]) => readonly [string, string]) | undefined;
    readers[name] =
      keyOf === undefined
        ? async (...args: unknown[]) => {
            open.assertOpen();
            return read(...args);
          }
        : async (...args: unknown[]) => {
            open.assertOpen();
            const [group, key] = keyOf(...args);
            return cache.read(group, key, () => read(...args));
          };
  }
  return readers as unknown as StoreReader;
}

/** Each autocommit write is a transaction of its own, in the writer's scope (WRITER_SCOPES). */
function autocommitWriters(
  guard: TransactionGuard,
  open: OpenState,
  inTransaction: TransactionRunner,
  txOn: TxOnClient,
): StoreWriter {
  return facade<StoreWriter, StoreTx>(STORE_WRITERS, async (name, call) => {
    guard.assertOutside();
    open.assertOpen();
    return inTransaction(WRITER_SCOPES[name as keyof StoreWriter], (client, state) =>
      Promise.resolve(call(txOn(client, state))),
    );
  });
}

/**
 * Group commit for the audit log, as on SQLite (audit-batch.ts), with one batch in flight: while
 * it commits, later appends gather behind it. The append is one statement
 * (ppx_append_audit_batch_durably, migrations 0007-0008), which holds the audit log's lock for
 * the insert only and returns once the commit is flushed.
 */
function auditGroupCommit(committed: StoreTx, open: OpenState): AuditBatcher {
  return new AuditBatcher({
    gather: true,
    isClosed: open.isClosed,
    writeAll: (events) => committed.appendAudit(events),
    async writeEach(items) {
      const outcomes: unknown[] = [];
      for (const events of items)
        outcomes.push(await committed.appendAudit(events).catch((error: unknown) => error));
      return outcomes;
    },
  });
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
