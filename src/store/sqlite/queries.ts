import type { DatabaseSync } from 'node:sqlite';
import type { Sync } from '../query-areas.ts';
import type { StoreTx } from '../store.ts';
import { a2aTaskQueries } from './a2a-task-queries.ts';
import { auditQueries } from './audit-queries.ts';
import { changeQueries } from './change-queries.ts';
import { consentQueries } from './consent-queries.ts';
import { consentReceiptQueries } from './consent-receipt-queries.ts';
import { passkeyQueries } from './passkey-queries.ts';
import { RecordCache } from './record-cache.ts';
import { recordQueries } from './record-queries.ts';
import { resourceSubscriptionQueries } from './resource-subscription-queries.ts';
import { reviewQueries } from './review-queries.ts';
import { StatementCache } from './statement-cache.ts';
import type { WalIndexHeader } from './wal-index-header.ts';
import { writebackQueries } from './writeback-queries.ts';

/** Every store operation as synchronous SQL on one connection, and the caches it keeps. */
export interface SqliteQueries extends Sync<StoreTx> {
  /** After a commit on this connection that may have changed the records it keeps (record-cache.ts). */
  forgetRecords(): void;
  /** After a rollback on this connection: the audit key lists it knows may be gone. */
  forgetKeySets(): void;
}

export interface QueryOptions {
  /** Keep records and profile content between reads (record-queries.ts, record-cache.ts). */
  readonly cacheContent?: boolean;
  /** The file's WAL index header, which tells the record cache that nothing was committed. */
  readonly header?: WalIndexHeader;
}

/**
 * Every store operation as plain synchronous SQL on `db`, one factory per area as on PostgreSQL
 * (postgres/queries.ts), sharing one statement cache. Typed as the whole StoreTx, so a method added
 * to the contract and to no area fails to compile. Transactions, locking and the async surface are
 * the caller's concern (sqlite-store.ts); a write here is one or more statements that the caller
 * wraps in a transaction or savepoint so it applies all-or-nothing. `cacheContent` only for a
 * connection whose reads see committed data alone (record-queries.ts).
 */
export function sqliteQueries(db: DatabaseSync, options: QueryOptions = {}): SqliteQueries {
  const sql = new StatementCache(db);
  // Grants, clients, profile content and token families, kept while nothing changed them.
  const records = options.cacheContent ? new RecordCache(sql, options.header) : undefined;
  return {
    ...recordQueries(sql, records),
    ...consentQueries(sql, records),
    ...auditQueries(sql),
    ...reviewQueries(sql),
    ...writebackQueries(sql),
    ...changeQueries(sql),
    ...a2aTaskQueries(sql),
    ...resourceSubscriptionQueries(sql),
    ...consentReceiptQueries(sql),
    ...passkeyQueries(sql),
  };
}
