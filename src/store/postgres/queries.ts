import type { StoreTx } from '../store.ts';
import { a2aTaskQueries } from './a2a-task-queries.ts';
import { auditQueries } from './audit-queries.ts';
import { changeQueries } from './change-queries.ts';
import { consentQueries } from './consent-queries.ts';
import { consentReceiptQueries } from './consent-receipt-queries.ts';
import { passkeyQueries } from './passkey-queries.ts';
import { type RecordQueryOptions, recordQueries } from './record-queries.ts';
import { resourceSubscriptionQueries } from './resource-subscription-queries.ts';
import { reviewQueries } from './review-queries.ts';
import type { Sql } from './sql.ts';
import { writebackQueries } from './writeback-queries.ts';

/**
 * Every store operation as SQL on `sql` (the pool, or the client of one transaction). Typed as the
 * whole StoreTx, so a method added to the contract and not here fails to compile. Transactions,
 * the write lock and savepoints are the caller's concern (transactions.ts, tx-calls.ts). `cacheContent` only
 * for the pool's committed reads.
 */
export interface QueryOptions extends RecordQueryOptions {
  /** The key of the store's locks (its schema), which appending to the audit log takes. */
  readonly writeLock: string;
  /** On the pool: each statement commits on its own, so an audit append commits durably itself. */
  readonly autocommit?: boolean;
}

export function postgresQueries(sql: Sql, options: QueryOptions): StoreTx {
  return {
    ...recordQueries(sql, options),
    ...consentQueries(sql),
    ...auditQueries(sql, options.writeLock, options.autocommit === true),
    ...reviewQueries(sql),
    ...writebackQueries(sql),
    ...changeQueries(sql),
    ...a2aTaskQueries(sql),
    ...resourceSubscriptionQueries(sql, options.writeLock),
    ...consentReceiptQueries(sql),
    ...passkeyQueries(sql),
  };
}
