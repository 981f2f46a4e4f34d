// The advisory locks of the PostgreSQL store (docs/store.md, "PostgreSQL"). Two-key locks: the
// first key names the lock, the second is hashtext(schema), so stores in different schemas of one
// database (the tests run one per schema) do not wait on each other. A collision of two schemas'
// hashes only makes them wait on each other; it never lets two writers of one schema in at once.

/** Held (transaction-level) by every write transaction and every autocommit write. */
export const WRITE_LOCK = 0x70707801;
/** Held (transaction-level) while migrations are applied at open. */
export const MIGRATION_LOCK = 0x70707802;
