import type { Store, StoreTx } from '../store/store.ts';
import type { Deps } from './deps.ts';

/**
 * Runs `fn` in one store transaction with Deps whose store is that transaction, so operations
 * written against Deps (createGrant, recordAudit…) compose atomically. A nested
 * `transaction()` inside simply runs in the outer one.
 */
export function inTransaction<T>(deps: Deps, fn: (txDeps: Deps) => Promise<T>): Promise<T> {
  return deps.store.transaction((tx) => fn({ ...deps, store: asStore(tx, deps.store) }));
}

function asStore(tx: StoreTx, outer: Store): Store {
  return {
    ...tx,
    changes: outer.changes,
    transaction: <T>(fn: (inner: StoreTx) => Promise<T>) => fn(tx),
    close: async () => {
      throw new Error('a transaction cannot close the store');
    },
  };
}
