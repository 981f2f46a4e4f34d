import type pg from 'pg';
import { Mutex } from '../mutex.ts';
import type { StoreTx, StoreWriter, TransactionScope } from '../store.ts';
import { type Savepoint, txFacade } from '../tx-shell.ts';
import { type LockWaits, processLockWaits } from './lock-waits.ts';
import { AREA_LOCKS, lockKey, sequenceLockCalls, timedLocks } from './locks.ts';
import { postgresQueries } from './queries.ts';
import { sqlOn } from './sql.ts';
import type { PgTxState } from './transactions.ts';

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
export const WRITER_SCOPES: { readonly [K in keyof StoreWriter]?: TransactionScope } = {
  putClient: { area: 'clients' },
  insertSigningKey: { area: 'signing_keys' },
  putSettingIfAbsent: { area: 'settings' },
  putSetting: { area: 'settings' },
  deleteSetting: { area: 'settings' },
};

/** The `tx` a transaction's fn gets, over the client and state the transaction runs on. */
export type TxOnClient = (client: Client, state: PgTxState) => StoreTx;

/**
 * The calls of a transaction on its client: queued one at a time (fn may start several at once;
 * one client runs one statement at a time, and each write's savepoint must not interleave with
 * another's), each write in a savepoint, the transaction's BEGIN and locks sent with its first
 * call. Lock waits are counted in `waits`.
 */
export function transactionCalls(schema: string, waits: LockWaits): TxOnClient {
  const queriesOf = clientQueries(schema);
  const locks = writeLocks(schema);
  return (client, state) => {
    const serial = new Mutex();
    const send = statementSender(client, state, waits);
    return txFacade({
      state,
      queries: queriesOf(client),
      savepoint: writeSavepoints(client, state, send, locks),
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
}

/** A pooled client's queries, made once: the pool hands the same clients out again and again. */
function clientQueries(schema: string): (client: Client) => StoreTx {
  const made = new WeakMap<Client, StoreTx>();
  return (client) => {
    let queries = made.get(client);
    if (queries === undefined) {
      queries = postgresQueries(sqlOn(client), { writeLock: schema });
      made.set(client, queries);
    }
    return queries;
  };
}

type Send = (statements: readonly string[]) => Promise<void>;

/**
 * Sends `statements` as one simple query, after the transaction's BEGIN and locks when they are
 * not sent yet, and counts the lock waits the statements that took locks reported.
 */
function statementSender(client: Client, state: PgTxState, waits: LockWaits): Send {
  return async (statements) => {
    const text = [...(state.pendingBegin !== undefined ? [state.pendingBegin] : []), ...statements].join(
      '; ',
    );
    state.pendingBegin = undefined;
    const results = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
    waits.add(results);
    processLockWaits.add(results);
  };
}

/** The locks a write may take first, by what it writes. */
interface WriteLocks {
  /** The outbox's and the audit log's. */
  readonly sequence: readonly string[];
  /** An area's (clients, keys, settings) in this store's schema. */
  area(area: keyof typeof AREA_LOCKS): string;
}

function writeLocks(schema: string): WriteLocks {
  const storeKey = lockKey(schema);
  return {
    sequence: sequenceLockCalls(schema),
    area: (area) => `pg_advisory_xact_lock(${AREA_LOCKS[area]}, ${storeKey})`,
  };
}

/**
 * Each write's savepoint, folded into as few round trips as can be (each costs the provider a
 * socket write and PostgreSQL a wake-up): a write's savepoint is released only when the next one
 * begins (the same simple query), or by COMMIT; the locks a write needs first go in that query
 * too. The outbox's and audit log's locks come before the first change or audit event (operations
 * announce and audit last, so they are held from there to the COMMIT only); an area's lock before
 * a write to clients, keys or settings in a transaction of another scope.
 */
function writeSavepoints(
  client: Client,
  state: PgTxState,
  send: Send,
  writeLocks: WriteLocks,
): (method: string) => Savepoint {
  let unreleased = false;
  const begin = async (locks: readonly string[]): Promise<void> => {
    const statements = [...(unreleased ? ['RELEASE store_write'] : []), 'SAVEPOINT store_write'];
    unreleased = false;
    await send(locks.length === 0 ? statements : [...statements, timedLocks(locks)]);
  };
  return (method) => ({
    begin: () => {
      const area = WRITER_SCOPES[method as keyof StoreWriter];
      const locks: string[] = [];
      if ((method === 'appendChange' || method === 'appendAudit') && !state.sequenced) {
        locks.push(...writeLocks.sequence);
        state.sequenced = true;
      }
      if (area !== undefined && 'area' in area) locks.push(writeLocks.area(area.area));
      return begin(locks);
    },
    release: () => {
      unreleased = true;
    },
    rollbackTo: async () => void (await client.query('ROLLBACK TO store_write; RELEASE store_write')),
  });
}
