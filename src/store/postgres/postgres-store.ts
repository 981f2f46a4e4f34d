import pg from 'pg';
import type { AuditEvent } from '../../model/audit-event.ts';
import { AuditBatcher } from '../audit-batch.ts';
import { InProcessChangeFeed } from '../in-process-change-feed.ts';
import { Mutex } from '../mutex.ts';
import {
  STORE_READERS,
  STORE_WRITERS,
  type Store,
  type StoreReader,
  type StoreTx,
  type StoreWriter,
  type TransactionScope,
} from '../store.ts';
import { facade, newTxState, type Savepoint, TransactionGuard, type TxState, txFacade } from '../tx-shell.ts';
import { changeChannel, listenForChanges } from './change-notices.ts';
import { LockWaits, processLockWaits } from './lock-waits.ts';
import { AREA_LOCKS, beginStatement, lockKey, sequenceLockCalls, timedLocks } from './locks.ts';
import { migratePostgres, quoteIdent } from './migrate.ts';
import { postgresQueries } from './queries.ts';
import { PostgresRateCounter } from './rate-counter.ts';
import { CACHED_READERS, NoticedCache } from './record-cache.ts';
import { pgTypes, sqlOn } from './sql.ts';
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

/** A transaction's state (tx-shell.ts), and what this driver does at its COMMIT. */
interface PgTxState extends TxState {
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

type Client = pg.PoolClient;

/** Writers of the tables kept in NoticedCache: after this instance commits one, it drops its own. */
const CACHED_WRITERS: ReadonlySet<string> = new Set<keyof StoreWriter>([
  'insertProfile',
  'touchProfile',
  'putClaims',
  'deleteClaims',
  'putModifiers',
  'deleteModifiers',
  'deleteProfile',
  'insertGrant',
  'revokeGrant',
  'shortenGrantExpiry',
  'putClient',
  'pruneUnusedClients',
  'insertSigningKey',
  'putSettingIfAbsent',
  'putSetting',
  'deleteSetting',
]);

/** The scope an autocommit writer on the store itself runs in (the rest: unscoped). */
const WRITER_SCOPES: { readonly [K in keyof StoreWriter]?: TransactionScope } = {
  putClient: { area: 'clients' },
  insertSigningKey: { area: 'signing_keys' },
  putSettingIfAbsent: { area: 'settings' },
  putSetting: { area: 'settings' },
  deleteSetting: { area: 'settings' },
};

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
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  const poolSize = Math.max(3, options.poolSize ?? 10);
  const searchPath =
    options.schema === undefined ? {} : { options: `-c search_path=${quoteIdent(options.schema)}` };
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: pgTypes,
    statement_timeout: statementTimeout,
    ...searchPath,
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
  const storeKey = lockKey(schema);
  const sequenceLocks = sequenceLockCalls(schema);

  const writers = new WriterGate(poolSize - 2);
  const waits = new LockWaits();
  // Tells a write or transaction started from inside a transaction's fn, which could wait on the
  // locks its own transaction holds, forever. Such code must use its `tx`.
  const guard = new TransactionGuard();
  const committed = postgresQueries(sqlOn(pool), { cacheContent: true, writeLock: schema, autocommit: true });
  const cache = new NoticedCache(() => listener.sync());
  let closed = false;
  const assertOpen = (): void => {
    if (closed) throw new Error('store is closed');
  };

  /**
   * Runs `work` in one transaction of `scope` on one pooled client; COMMIT, then the change events
   * it appended go to the feed. Any error rolls back; a client whose ROLLBACK failed is discarded
   * rather than returned to the pool.
   */
  const inTransaction = <T>(
    scope: TransactionScope | undefined,
    work: (client: Client, state: PgTxState) => Promise<T>,
  ) =>
    writers.run(scopeKey(scope), async () => {
      assertOpen();
      const state: PgTxState = {
        ...newTxState(),
        sequenced: false,
        wroteCached: false,
        pendingBegin: beginStatement(schema, scope),
      };
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        let result: T;
        try {
          result = await work(client, state);
          if (state.pendingBegin === undefined) await client.query(commitStatement(client, channel, state));
        } catch (error) {
          if (state.pendingBegin === undefined) {
            await client.query('ROLLBACK').catch((e: unknown) => {
              broken = e instanceof Error ? e : new Error(String(e));
            });
          }
          throw error;
        } finally {
          state.active = false;
        }
        if (state.wroteCached) cache.dropAll();
        feed.publish(state.changes);
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
  const listener = await listenForChanges({ connectionString: url, ...searchPath }, channel, {
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

  // A pooled client's queries, made once: the pool hands the same clients out again and again.
  const clientQueries = new WeakMap<Client, StoreTx>();
  const txQueriesOf = (client: Client): StoreTx => {
    let queries = clientQueries.get(client);
    if (queries === undefined) {
      queries = postgresQueries(sqlOn(client), { writeLock: schema });
      clientQueries.set(client, queries);
    }
    return queries;
  };
  const makeTx = (client: Client, state: PgTxState): StoreTx => {
    // fn may start several calls at once; one client runs one statement at a time, and each write's
    // savepoint must not interleave with another's, so the calls of one tx queue here.
    const serial = new Mutex();
    // Each round trip costs the provider a socket write and PostgreSQL a wake-up, so the statements
    // around a write are folded into as few as can be: a write's savepoint is released only when
    // the next one begins (the same simple query), or by COMMIT; the locks a write needs first go
    // in that query too.
    let unreleased = false;
    // Sends `statements`, after the transaction's BEGIN and locks when they are not sent yet, and
    // counts the lock waits the statements that took locks reported.
    const send = async (statements: readonly string[]): Promise<void> => {
      const text = [...(state.pendingBegin !== undefined ? [state.pendingBegin] : []), ...statements].join(
        '; ',
      );
      state.pendingBegin = undefined;
      const results = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
      waits.add(results);
      processLockWaits.add(results);
    };
    const begin = async (locks: readonly string[]): Promise<void> => {
      const statements = [...(unreleased ? ['RELEASE store_write'] : []), 'SAVEPOINT store_write'];
      unreleased = false;
      await send(locks.length === 0 ? statements : [...statements, timedLocks(locks)]);
    };
    // The outbox's and audit log's locks before the first change or audit event (operations
    // announce and audit last, so they are held from there to the COMMIT only); an area's lock
    // before a write to clients, keys or settings in a transaction of another scope.
    const savepoint = (method: string): Savepoint => ({
      begin: () => {
        const area = WRITER_SCOPES[method as keyof StoreWriter];
        const locks: string[] = [];
        if ((method === 'appendChange' || method === 'appendAudit') && !state.sequenced) {
          locks.push(...sequenceLocks);
          state.sequenced = true;
        }
        if (area !== undefined && 'area' in area)
          locks.push(`pg_advisory_xact_lock(${AREA_LOCKS[area.area]}, ${storeKey})`);
        return begin(locks);
      },
      release: () => {
        unreleased = true;
      },
      rollbackTo: async () => void (await client.query('ROLLBACK TO store_write; RELEASE store_write')),
    });
    return txFacade({
      state,
      queries: txQueriesOf(client),
      savepoint,
      serial: <R>(call: () => R, kind: 'read' | 'write') =>
        serial.run(async () => {
          // A read sees what the transaction's locks guard only once they are held.
          if (kind === 'read' && state.pendingBegin !== undefined) await send([]);
          return call();
        }) as Promise<Awaited<R>>,
      wrote: (method) => {
        if (CACHED_WRITERS.has(method)) state.wroteCached = true;
      },
    });
  };

  const readers: Record<string, unknown> = {};
  for (const name of Object.keys(STORE_READERS) as (keyof StoreReader)[]) {
    const read = committed[name] as (...a: unknown[]) => Promise<unknown>;
    const keyOf = CACHED_READERS[name] as ((...a: unknown[]) => readonly [string, string]) | undefined;
    readers[name] =
      keyOf === undefined
        ? async (...args: unknown[]) => {
            assertOpen();
            return read(...args);
          }
        : async (...args: unknown[]) => {
            assertOpen();
            const [group, key] = keyOf(...args);
            return cache.read(group, key, () => read(...args));
          };
  }
  // Each autocommit write is a transaction of its own, in the writer's scope.
  const autocommitWriters = facade<StoreWriter, StoreTx>(STORE_WRITERS, async (name, call) => {
    guard.assertOutside();
    assertOpen();
    return inTransaction(WRITER_SCOPES[name as keyof StoreWriter], (client, state) =>
      Promise.resolve(call(makeTx(client, state))),
    );
  });

  // Group commit for the audit log, as on SQLite (audit-batch.ts), with one batch in flight: while
  // it commits, later appends gather behind it. The append is one statement
  // (ppx_append_audit_batch_durably, migrations 0007-0008), which holds the audit log's lock for
  // the insert only and returns once the commit is flushed.
  const audit = new AuditBatcher({
    gather: true,
    isClosed: () => closed,
    writeAll: (events) => committed.appendAudit(events),
    async writeEach(items) {
      const outcomes: unknown[] = [];
      for (const events of items)
        outcomes.push(await committed.appendAudit(events).catch((error: unknown) => error));
      return outcomes;
    },
  });
  const appendAudit = (events: readonly AuditEvent[]): Promise<void> => {
    guard.assertOutside();
    assertOpen();
    return audit.append(events);
  };

  return {
    ...(readers as unknown as StoreReader),
    ...autocommitWriters,
    appendAudit,
    changes: feed,
    sharedRateCounter: new PostgresRateCounter(pool),
    freshReads: (fn) => cache.fresh(fn),
    lockWaits: () => waits.snapshot(),
    listenerPid: () => listener.pid(),

    async transaction<T>(fn: (tx: StoreTx) => Promise<T>, scope?: TransactionScope): Promise<T> {
      guard.assertOutside();
      assertOpen();
      return inTransaction(scope, (client, state) => guard.run(state, () => fn(makeTx(client, state))));
    },

    async close(): Promise<void> {
      await audit.flush();
      await writers.idle();
      if (closed) return;
      closed = true;
      feed.close();
      await listener.close();
      await pool.end();
    },
  } satisfies PostgresStore;
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
