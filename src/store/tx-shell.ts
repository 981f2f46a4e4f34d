import { AsyncLocalStorage } from 'node:async_hooks';
import type { ChangeDraft, ChangeEvent } from '../model/change-event.ts';
import type { StoreTx, TransactionScope } from './store.ts';
import { STORE_READERS, STORE_WRITERS } from './store-names.ts';

// The transaction shell both drivers wrap around their queries: the async facade over a queries
// object, the state of one transaction, the guard against using the store from inside
// `transaction(fn)`, a savepoint per write, and the capture of the change events a transaction
// appends, which the driver publishes after COMMIT. What is the driver's own: how a call is run
// (SQLite: at once, synchronously; PostgreSQL: queued on the transaction's client), the
// statements of a savepoint, BEGIN/COMMIT, locks and the write mutex.

/**
 * How a driver runs one call of a facade: `call` applies the method to the queries it is given.
 * `name` is the method's, for a runner that treats one specially (an autocommit `appendChange`
 * publishes its event). A runner must not add work per call beyond what it needs: SQLite's read
 * path is `async (name, call) => call(queries)`, one promise per read.
 */
export type Runner<Q> = (name: string, call: (queries: Q) => unknown) => Promise<unknown>;

/**
 * An async facade with the methods listed in `names` (STORE_READERS, STORE_WRITERS), each one
 * `run(name, (queries) => queries[name](...args))`. The queries may be synchronous (SQLite's
 * Sync<StoreTx>) or async (PostgreSQL's StoreTx): the runner's promise settles with the result.
 */
export function facade<T, Q>(names: { readonly [K in keyof T]: true }, run: Runner<Q>): T {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(names)) {
    out[name] = (...args: unknown[]) =>
      run(name, (queries) => (queries as Record<string, (...a: unknown[]) => unknown>)[name]!(...args));
  }
  return out as T;
}

/** One transaction's state, from `transaction(fn)` until it settles. */
export interface TxState {
  /** False once the transaction settled: its tx then refuses every call. */
  active: boolean;
  /** The change events appended so far, published after COMMIT (and dropped by a rollback). */
  readonly changes: ChangeEvent[];
  /** Whether its scope promised not to touch the audit log (TransactionScope `unaudited`). */
  readonly unaudited: boolean;
}

/** `unaudited`: the transaction's scope says so (isUnaudited); its tx then refuses AUDIT_METHODS. */
export function newTxState(unaudited = false): TxState {
  return { active: true, changes: [], unaudited };
}

/** Whether a transaction of `scope` promised not to touch the audit log. */
export function isUnaudited(scope: TransactionScope | undefined): boolean {
  return scope !== undefined && 'unaudited' in scope && scope.unaudited === true;
}

/** The tx methods that touch the audit log, which an `unaudited` transaction refuses. */
const AUDIT_METHODS: ReadonlySet<string> = new Set<keyof StoreTx>([
  'appendAudit',
  'pruneAudit',
  'pruneAuditKeySets',
  'listAudit',
]);

/**
 * Which transaction the running code is inside, if any (AsyncLocalStorage). A write or
 * `transaction` on the store (not the tx) from inside `fn` would wait for the write lock or mutex
 * that fn's own transaction holds, forever: `assertOutside` throws instead.
 */
export class TransactionGuard {
  readonly #current = new AsyncLocalStorage<TxState>();

  /** Runs `fn` as the inside of the transaction of `state`. */
  run<T>(state: TxState, fn: () => T): T {
    return this.#current.run(state, fn);
  }

  assertOutside(): void {
    if (this.#current.getStore()?.active) {
      throw new Error('inside transaction(): use the tx argument, not the store (it would deadlock)');
    }
  }
}

/**
 * The statements of a savepoint. Synchronous (SQLite: each returns nothing) or async (PostgreSQL:
 * each returns a promise); `inSavepoint` stays synchronous all through when they and the call are.
 */
export interface Savepoint {
  begin(): void | Promise<void>;
  release(): void | Promise<void>;
  /** Rolls back to the savepoint and releases it; also where a driver forgets what the rollback undid. */
  rollbackTo(): void | Promise<void>;
}

/** `next()` after `step`, at once when `step` is done, else when its promise resolves. */
function after<T>(step: void | Promise<void>, next: () => T): T {
  return step instanceof Promise ? (step.then(next) as T) : next();
}

/**
 * Runs `call` in `savepoint`: released when it returns (or its promise resolves), rolled back to
 * when it, or the release, throws (or rejects), and the error rethrown. A write in a savepoint of
 * its own stays atomic when the transaction's fn catches its error and goes on, and PostgreSQL
 * keeps the transaction usable. With synchronous statements and a synchronous call nothing waits
 * for a promise, so two writes started together by one fn cannot interleave their savepoints.
 */
export function inSavepoint<T>(savepoint: Savepoint, call: () => T): T {
  const undo = (error: unknown): never =>
    after(savepoint.rollbackTo(), () => {
      throw error;
    });
  return after(savepoint.begin(), () => {
    try {
      const result = call();
      if (result instanceof Promise) {
        return result.then((value: unknown) => after(savepoint.release(), () => value)).catch(undo) as T;
      }
      return after(savepoint.release(), () => result);
    } catch (error) {
      return undo(error);
    }
  });
}

export interface TxShell<Q> {
  /** The transaction's state: its calls throw once it is no longer active. */
  readonly state: TxState;
  /** The transaction's queries (on its connection or client). */
  readonly queries: Q;
  /**
   * The savepoint each write runs in, or the one for a given writer: its `begin` may take what
   * that write needs first (PostgreSQL: the sequence lock before appendChange or appendAudit, an
   * area's lock before a write to clients, keys or settings).
   */
  readonly savepoint: Savepoint | ((method: string) => Savepoint);
  /** Told of each write that succeeded, after its savepoint was released (PostgreSQL: which caches it dirtied). */
  readonly wrote?: (method: string, result: unknown) => void;
  /**
   * How one call is run; default: at once (SQLite). PostgreSQL queues the calls of one tx, since
   * one client runs one statement at a time and savepoints of calls started together must not
   * interleave. `kind` says whether the call reads or writes (PostgreSQL opens its transaction
   * lazily: a write's first statement carries the BEGIN, a read must send it first).
   */
  readonly serial?: <R>(call: () => R, kind: 'read' | 'write') => Promise<Awaited<R>>;
  /** A further check before each call (SQLite: that SQLite has not rolled the transaction back). */
  readonly check?: () => void;
}

/**
 * The `tx` that `transaction(fn)` hands to fn: every reader and writer of the store on the
 * transaction's queries, each write in a savepoint, every call refused once the transaction
 * settled, and each appended change event remembered in `state.changes`, for the driver to publish
 * after COMMIT, and only then.
 */
export function txFacade<Q extends object>(shell: TxShell<Q>): StoreTx {
  const { state, queries, check, wrote } = shell;
  const savepointOf =
    typeof shell.savepoint === 'function' ? shell.savepoint : () => shell.savepoint as Savepoint;
  const serial = shell.serial ?? (async <R>(call: () => R, _kind: 'read' | 'write') => call() as Awaited<R>);
  const assertActive = (): void => {
    if (!state.active) throw new Error('transaction is over: tx used after transaction() settled');
    check?.();
  };
  const call = (name: string, args: unknown[]) => (queries as Methods)[name]!(...args);
  const write = (name: string, args: unknown[]) =>
    serial(() => {
      assertActive();
      const result = inSavepoint(savepointOf(name), () => call(name, args));
      if (wrote === undefined) return result;
      if (result instanceof Promise) {
        return result.then((value: unknown) => {
          wrote(name, value);
          return value;
        });
      }
      wrote(name, result);
      return result;
    }, 'write');
  const read = (name: string, args: unknown[]) =>
    serial(() => {
      assertActive();
      return call(name, args);
    }, 'read');
  const appendChange = async (draft: ChangeDraft): Promise<ChangeEvent> => {
    const event = (await write('appendChange', [draft])) as ChangeEvent;
    state.changes.push(event);
    return event;
  };
  // A method is made when it is looked up (a transaction uses a few of the store's ~95), not all of
  // them for every transaction: that was ~14 µs a transaction, 3-4 % of a token refresh
  // (docs/benchmarks.md, "Issue 27"). Each looked-up method is bound to this tx (it may be called
  // unbound); `in`, Object.keys and spreading see every method, as on an object of them.
  // A broken promise is the caller's bug: refused before anything runs, in every driver alike.
  const refused = (name: string) => () =>
    Promise.reject(new Error(`${name}: this transaction's scope says it does not touch the audit log`));
  return new Proxy(TX_METHOD_KINDS, {
    get(target, name) {
      if (typeof name !== 'string' || !Object.hasOwn(target, name)) return undefined;
      if (state.unaudited && AUDIT_METHODS.has(name)) return refused(name);
      if (name === 'appendChange') return appendChange;
      return target[name] === 'write'
        ? (...args: unknown[]) => write(name, args)
        : (...args: unknown[]) => read(name, args);
    },
  }) as unknown as StoreTx;
}

type Methods = Record<string, (...args: unknown[]) => unknown>;

/**
 * Every method of a tx and whether it reads or writes (a writer where a name is both): the target
 * of each tx's Proxy. Not frozen: a Proxy must answer a frozen property with its own value.
 */
const TX_METHOD_KINDS: Readonly<Record<string, 'read' | 'write'>> = {
  ...Object.fromEntries(Object.keys(STORE_READERS).map((name) => [name, 'read' as const])),
  ...Object.fromEntries(Object.keys(STORE_WRITERS).map((name) => [name, 'write' as const])),
};

/** What an autocommit write committed for the change feed: the event, when it was appendChange. */
export function publishedBy(name: string, result: unknown): readonly ChangeEvent[] {
  return name === 'appendChange' ? [result as ChangeEvent] : [];
}
