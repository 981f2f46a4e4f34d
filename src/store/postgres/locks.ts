import { createHash } from 'node:crypto';
import type { TransactionScope } from '../store.ts';

// The advisory locks of the PostgreSQL store (docs/store.md, "Concurrency, operation by
// operation"). Two-key, transaction-level locks: the first key names the lock, the second is a
// 32-bit hash of the schema (and of the subject, for a subject's lock), so stores in different
// schemas of one database (the tests run one per schema) do not wait on each other. A collision of
// two hashes only makes two writers wait on each other; it never lets two writers of one key in at
// once. The order in which a transaction takes them is fixed (WRITE_LOCK, then its subject, family or area,
// then a grant's SUBSCRIPTION_LOCK, then OUTBOX_LOCK, then AUDIT_LOCK), so they cannot deadlock
// among themselves.

/**
 * Every write transaction takes it: shared when it names its scope (a subject or an area), alone
 * when it does not (an unscoped transaction may write anything, so it waits for all the others).
 */
export const WRITE_LOCK = 0x70707801;
/** Held (transaction-level) while migrations are applied at open. */
export const MIGRATION_LOCK = 0x70707802;
/** One subject's writes: a transaction scoped `{ subject }` takes it for that subject. */
const SUBJECT_LOCK = 0x70707803;
/** One token family's rotations: a transaction scoped `{ family }` takes it for that family. */
const FAMILY_LOCK = 0x70707809;
/** The areas that are not a person's: registered clients, signing keys, settings. */
export const AREA_LOCKS = { clients: 0x70707804, signing_keys: 0x70707805, settings: 0x70707806 } as const;
/** The change outbox's seq: from a transaction's first change event to its (asynchronous) COMMIT. */
export const OUTBOX_LOCK = 0x70707807;
/** The audit log's seq and clock: for one insert and its (asynchronous) COMMIT. */
export const AUDIT_LOCK = 0x70707808;
/**
 * One grant's MCP resource subscriptions: addResourceSubscription takes it, in a statement of its
 * own, before it counts the grant's rows, so concurrent adds (from any instance, in transactions
 * of any scope) never leave more than the cap. Held to the COMMIT; a transaction that adds
 * subscriptions does so before its first change or audit event (the order above).
 */
export const SUBSCRIPTION_LOCK = 0x7070780a;

/** A signed 32-bit key for the second half of a lock (hashtext's range). */
export function lockKey(...parts: readonly string[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readInt32BE(0);
}

/**
 * A SELECT taking `locks` (advisory lock calls) that reports how long they waited, in µs, as
 * `waited_us`: the clock is read before them and after them (the lateral subquery depends on the
 * first reading, so it runs after it).
 */
export function timedLocks(locks: readonly string[]): string {
  return `SELECT (extract(epoch FROM clock_timestamp() - s.t) * 1e6)::bigint AS waited_us
    FROM (SELECT clock_timestamp() AS t) s CROSS JOIN LATERAL (SELECT ${locks.join(', ')} WHERE s.t IS NOT NULL) l`;
}

/**
 * The statement that opens a transaction of `scope` in `schema` with its locks, as one simple
 * query (no parameters: the keys are integers computed here).
 */
export function beginStatement(schema: string, scope: TransactionScope | undefined): string {
  const store = lockKey(schema);
  if (scope === undefined) return `BEGIN; ${timedLocks([`pg_advisory_xact_lock(${WRITE_LOCK}, ${store})`])}`;
  const own =
    'subject' in scope
      ? `pg_advisory_xact_lock(${SUBJECT_LOCK}, ${lockKey(schema, scope.subject)})`
      : 'family' in scope
        ? `pg_advisory_xact_lock(${FAMILY_LOCK}, ${lockKey(schema, scope.family)})`
        : `pg_advisory_xact_lock(${AREA_LOCKS[scope.area]}, ${store})`;
  return `BEGIN; ${timedLocks([`pg_advisory_xact_lock_shared(${WRITE_LOCK}, ${store})`, own])}`;
}

/** The outbox's and the audit log's locks, in that order (for timedLocks). */
export function sequenceLockCalls(schema: string): string[] {
  const store = lockKey(schema);
  return [
    `pg_advisory_xact_lock(${OUTBOX_LOCK}, ${store})`,
    `pg_advisory_xact_lock(${AUDIT_LOCK}, ${store})`,
  ];
}
