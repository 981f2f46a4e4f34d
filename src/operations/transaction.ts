import type { Result } from '../model/errors.ts';
import type { TransactionScope } from '../store/store.ts';
import type { AnyDeps, TxDeps } from './deps.ts';

/**
 * The one entry point for writes: runs `fn` in one store transaction with Deps whose store is
 * that transaction, so the writes of operations written against TxDeps (createGrant,
 * recordAudit, announce…) and their change events commit together, or not at all when `fn`
 * throws. Called with a TxDeps (nested), `fn` simply runs in the outer transaction.
 */
export function inTransaction<T>(
  deps: AnyDeps,
  fn: (tx: TxDeps) => Promise<T>,
  scope?: TransactionScope,
): Promise<T> {
  if (isTransaction(deps)) return fn(deps);
  return deps.store.transaction((tx) => fn({ ...deps, store: tx }), scope);
}

/** Whether `deps` is already inside a transaction (its store has no `transaction` of its own). */
function isTransaction(deps: AnyDeps): deps is TxDeps {
  return !('transaction' in deps.store);
}

/**
 * inTransaction for a step that answers a Result: a failure rolls the whole transaction back
 * (nothing it wrote commits, no change event is announced) and is returned as it was. Nested in
 * another transaction, the failure goes back to the outer step, which decides.
 */
export async function inTransactionUnlessFailed<T>(
  deps: AnyDeps,
  fn: (tx: TxDeps) => Promise<Result<T>>,
  scope?: TransactionScope,
): Promise<Result<T>> {
  if (isTransaction(deps)) return fn(deps);
  try {
    return await deps.store.transaction(async (tx) => {
      const result = await fn({ ...deps, store: tx });
      if (!result.ok) throw new RolledBack(result);
      return result;
    }, scope);
  } catch (e) {
    if (e instanceof RolledBack) return e.result;
    throw e;
  }
}

/** Carries a failure out of a transaction it rolled back. */
class RolledBack extends Error {
  readonly result: Extract<Result<never>, { ok: false }>;

  constructor(result: Extract<Result<unknown>, { ok: false }>) {
    super(result.error.description);
    this.result = result;
  }
}
