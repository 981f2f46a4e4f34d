import type { AnyDeps, TxDeps } from './deps.ts';

/**
 * The one entry point for writes: runs `fn` in one store transaction with Deps whose store is
 * that transaction, so the writes of operations written against TxDeps (createGrant,
 * recordAudit, announce…) and their change events commit together, or not at all when `fn`
 * throws. Called with a TxDeps (nested), `fn` simply runs in the outer transaction.
 */
export function inTransaction<T>(deps: AnyDeps, fn: (tx: TxDeps) => Promise<T>): Promise<T> {
  if (isTransaction(deps)) return fn(deps);
  return deps.store.transaction((tx) => fn({ ...deps, store: tx }));
}

/** Whether `deps` is already inside a transaction (its store has no `transaction` of its own). */
export function isTransaction(deps: AnyDeps): deps is TxDeps {
  return !('transaction' in deps.store);
}
