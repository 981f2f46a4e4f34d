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
  type TransactionScope,
} from '../store.ts';
import { changeChannel, listenForChanges } from './change-notices.ts';
import { LockWaits } from './lock-waits.ts';
import { AREA_LOCKS, beginStatement, lockKey, sequenceStatement } from './locks.ts';
import { migratePostgres, quoteIdent } from './migrate.ts';
import { postgresQueries } from './queries.ts';
import { PostgresRateCounter } from './rate-counter.ts';
import { CACHED_READERS, NoticedCache } from './record-cache.ts';
import { pgTypes, sqlOn } from './sql.ts';

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

interface TxState {
  active: boolean;
  /** The change events appended so far, published after COMMIT. */
  readonly changes: ChangeEvent[];
  /** Whether it holds the outbox's and the audit log's locks (taken at its first append to either). */
  sequenced: boolean;
  /** Whether it wrote a table an instance keeps in memory (record-cache.ts). */
  wroteCached: boolean;
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
  const sequence = sequenceStatement(schema);

  const writers = new WriterGate(poolSize - 2);
  const waits = new LockWaits();
  // Tells a write or transaction started from inside a transaction's fn, which could wait on the
  // locks its own transaction holds, forever. Such code must use its `tx`.
  const current = new AsyncLocalStorage<TxState>();
  const committed = postgresQueries(sqlOn(pool), { cacheContent: true, writeLock: schema, autocommit: true });
  const cache = new NoticedCache(() => listener.sync());
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
   * Runs `work` in one transaction of `scope` on one pooled client; COMMIT, then the change events
   * it appended go to the feed. Any error rolls back; a client whose ROLLBACK failed is discarded
   * rather than returned to the pool.
   */
  const inTransaction = <T>(
    scope: TransactionScope | undefined,
    work: (client: Client, state: TxState) => Promise<T>,
  ) =>
    writers.run(scopeKey(scope), async () => {
      assertOpen();
      const state: TxState = { active: true, changes: [], sequenced: false, wroteCached: false };
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        // One round trip for BEGIN and the locks (a simple query may hold several statements).
        waits.add(await client.query(beginStatement(schema, scope)));
        let result: T;
        try {
          result = await work(client, state);
          const last = state.changes.at(-1);
          // Other instances learn of the commit from its notification (change-notices.ts).
          if (last !== undefined) await client.query('SELECT pg_notify($1, $2)', [channel, String(last.seq)]);
          if (state.sequenced) {
            // The outbox's and audit log's locks go with this COMMIT, before its WAL is flushed;
            // the flush is waited for below, outside every lock, before anyone learns of the commit.
            await client.query('SET LOCAL synchronous_commit = off; COMMIT');
            await client.query("SELECT pg_logical_emit_message(true, 'ppx', '')");
          } else {
            await client.query('COMMIT');
          }
        } catch (error) {
          await client.query('ROLLBACK').catch((e: unknown) => {
            broken = e instanceof Error ? e : new Error(String(e));
          });
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
      const sequenced = name === 'appendChange' || name === 'appendAudit';
      const area = WRITER_SCOPES[name as keyof StoreWriter];
      out[name] = (...args: unknown[]) =>
        serial.run(async () => {
          assertActive();
          if (sequenced && !state.sequenced) {
            // The global seqs: from here to COMMIT (operations announce and audit last).
            waits.add(await client.query(sequence));
            state.sequenced = true;
          }
          await client.query(
            area !== undefined && 'area' in area
              ? `SAVEPOINT store_write; SELECT pg_advisory_xact_lock(${AREA_LOCKS[area.area]}, ${storeKey})`
              : 'SAVEPOINT store_write',
          );
          try {
            const result = await (
              queries[name as keyof StoreWriter] as (...a: unknown[]) => Promise<unknown>
            )(...args);
            await client.query('RELEASE store_write');
            if (name === 'appendChange') state.changes.push(result as ChangeEvent);
            if (CACHED_WRITERS.has(name)) state.wroteCached = true;
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
  const autocommitWriters: Record<string, unknown> = {};
  for (const name of Object.keys(STORE_WRITERS) as (keyof StoreWriter)[]) {
    if (name === 'appendAudit') continue;
    autocommitWriters[name] = async (...args: unknown[]) => {
      assertNotInTransaction();
      assertOpen();
      return inTransaction(WRITER_SCOPES[name], (client, state) => {
        const tx = makeTx(client, state);
        return (tx[name] as (...a: unknown[]) => Promise<unknown>)(...args);
      });
    };
  }

  // Group commit for the audit log, as on SQLite: the appends of one turn of the event loop share
  // one commit, in the order they were called; each caller waits for the commit that holds its
  // events. The append is one statement (ppx_append_audit_durably, migration 0007), which holds
  // the audit log's lock for the insert only and returns once the commit is flushed. When the batch
  // fails (a duplicate id), each item is appended on its own, so that the failing one fails alone.
  // Batches of this instance may run side by side, each on a connection of its own.
  let auditQueue: { events: readonly AuditEvent[]; done: (error?: unknown) => void }[] = [];
  const append = async (events: readonly AuditEvent[]): Promise<void> => {
    assertOpen();
    await committed.appendAudit(events);
  };
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
  let auditFlushing: Promise<void> = Promise.resolve();
  const appendAudit = (events: readonly AuditEvent[]): Promise<void> => {
    assertNotInTransaction();
    assertOpen();
    return new Promise<void>((resolve, reject) => {
      if (auditQueue.length === 0) {
        setImmediate(() => {
          auditFlushing = Promise.all([auditFlushing, flushAudit()]).then(() => undefined);
        });
      }
      auditQueue.push({ events, done: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  };

  return {
    ...(readers as unknown as StoreReader),
    ...(autocommitWriters as unknown as Omit<StoreWriter, 'appendAudit'>),
    appendAudit,
    changes: feed,
    sharedRateCounter: new PostgresRateCounter(pool),
    lockWaits: () => waits.snapshot(),
    listenerPid: () => listener.pid(),

    async transaction<T>(fn: (tx: StoreTx) => Promise<T>, scope?: TransactionScope): Promise<T> {
      assertNotInTransaction();
      assertOpen();
      return inTransaction(scope, (client, state) => current.run(state, () => fn(makeTx(client, state))));
    },

    async close(): Promise<void> {
      await flushAudit();
      await auditFlushing;
      await writers.idle();
      if (closed) return;
      closed = true;
      feed.close();
      await listener.close();
      await pool.end();
    },
  } satisfies PostgresStore;
}

/** The in-process queue a transaction of `scope` waits in. */
function scopeKey(scope: TransactionScope | undefined): string {
  if (scope === undefined) return '';
  return 'subject' in scope ? `s${scope.subject}` : `a${scope.area}`;
}

/**
 * Keeps the connections that hold or wait for a write lock to one per scope and to `limit` in all,
 * so that transactions waiting on a lock never take every pooled connection from the reads (and
 * from the transaction holding that lock, which may read through the store). An unscoped
 * transaction ('') waits until no other runs, and none starts while it waits.
 */
class WriterGate {
  readonly #limit: number;
  readonly #queues = new Map<string, { mutex: Mutex; pending: number }>();
  readonly #waiting: { readonly exclusive: boolean; readonly enter: () => void }[] = [];
  #running = 0;
  #exclusive = false;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = { mutex: new Mutex(), pending: 0 };
      this.#queues.set(key, queue);
    }
    const q = queue;
    q.pending++;
    return q.mutex
      .run(async () => {
        await this.#enter(key === '');
        try {
          return await task();
        } finally {
          this.#leave(key === '');
        }
      })
      .finally(() => {
        if (--q.pending === 0) this.#queues.delete(key);
      });
  }

  /** Resolves once nothing runs or waits. */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) {
      await Promise.all([...this.#queues.values()].map((q) => q.mutex.run(() => undefined)));
    }
  }

  #fits(exclusive: boolean): boolean {
    return exclusive ? this.#running === 0 : !this.#exclusive && this.#running < this.#limit;
  }

  #enter(exclusive: boolean): Promise<void> {
    if (this.#waiting.length === 0 && this.#fits(exclusive)) {
      this.#take(exclusive);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push({ exclusive, enter: resolve }));
  }

  #take(exclusive: boolean): void {
    this.#running++;
    if (exclusive) this.#exclusive = true;
  }

  #leave(exclusive: boolean): void {
    this.#running--;
    if (exclusive) this.#exclusive = false;
    // Wake waiters in order while they fit (first in, first out: none overtakes an earlier one).
    for (
      let next = this.#waiting[0];
      next !== undefined && this.#fits(next.exclusive);
      next = this.#waiting[0]
    ) {
      this.#waiting.shift();
      this.#take(next.exclusive);
      next.enter();
    }
  }
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
