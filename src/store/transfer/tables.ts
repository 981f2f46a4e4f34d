// What `ppx migrate` moves between the two stores: every table of the schema (the same tables and
// columns on both sides, src/store/postgres/migrations/0001_initial.sql), in an order that never
// inserts a row before the row its foreign key points at. test/store/transfer.test.ts checks this
// list against both schemas, so a migration that adds a table or a column fails there until the
// column is listed here.
//
// Not moved: schema_migrations (each side applies its own files), SQLite's sqlite_sequence and
// PostgreSQL's change_seq and identity sequences (carried as high-water marks, below), and
// rate_windows (PostgreSQL's shared rate counts: a window lasts a minute, docs/deploy.md),
// dpop_proofs (the DPoP replay ledger: a proof lives five minutes), passkey_tickets (a passkey
// challenge or setup link lives minutes to a day; docs/passkeys.md) and resource_subscriptions (MCP
// resource subscriptions: transient protocol state, which a client makes again on its next
// session; docs/store.md, "MCP resource subscriptions").

export interface TableSpec {
  readonly name: string;
  /** The primary key: rows are read, compared and paged in its order. */
  readonly key: readonly string[];
  /** Every column, key included, in the order rows are carried. */
  readonly columns: readonly string[];
  /** Columns SQLite spells otherwise: grant_requests.seq is its implicit rowid. */
  readonly sqlite?: Readonly<Record<string, string>>;
}

const table = (
  name: string,
  key: string[],
  columns: string[],
  sqlite?: Record<string, string>,
): TableSpec => ({
  name,
  key,
  columns,
  ...(sqlite ? { sqlite } : {}),
});

export const TABLES: readonly TableSpec[] = [
  table('settings', ['name'], ['name', 'value']),
  table('signing_keys', ['kid'], ['kid', 'created_at', 'body']),
  table('clients', ['client_id'], ['client_id', 'created_at', 'body']),
  table(
    'profiles',
    ['profile_id'],
    ['profile_id', 'subject_id', 'created_at', 'updated_at', 'default_policy', 'version'],
  ),
  table('claims', ['claim_id'], ['claim_id', 'profile_id', 'namespace', 'key', 'body']),
  table('modifiers', ['modifier_id'], ['modifier_id', 'profile_id', 'body']),
  table(
    'claim_changes',
    ['profile_id', 'namespace', 'key', 'domains', 'source_kind', 'review_status'],
    ['profile_id', 'namespace', 'key', 'domains', 'source_kind', 'review_status', 'changed_at'],
  ),
  table('claim_history', ['seq'], ['seq', 'claim_id', 'profile_id', 'at', 'at_ms', 'body']),
  table(
    'grants',
    ['grant_id'],
    [
      'grant_id',
      'subject_id',
      'grantee_id',
      'profile_id',
      'status',
      'granted_at',
      'expires_at',
      'revoked_at',
      'access_mode',
      'body',
    ],
  ),
  table('grant_expiries', ['grant_id'], ['grant_id', 'announced_at']),
  table(
    'consent_receipts',
    ['receipt_id'],
    ['receipt_id', 'subject_id', 'grant_id', 'decision', 'issued_at', 'body'],
  ),
  table(
    'proposals',
    ['proposal_id'],
    ['proposal_id', 'profile_id', 'grant_id', 'client_id', 'status', 'created_at', 'body'],
  ),
  table(
    'cross_domain_reviews',
    ['review_id'],
    [
      'review_id',
      'grant_id',
      'subject_id',
      'source_domains',
      'target_domain',
      'status',
      'created_at',
      'decided_at',
      'body',
    ],
  ),
  table('subjects', ['subject_id'], ['subject_id', 'username', 'body']),
  table('sessions', ['session_hash'], ['session_hash', 'subject_id', 'expires_at', 'body']),
  table(
    'passkeys',
    ['credential_id'],
    [
      'credential_id',
      'subject_id',
      'public_key',
      'counter',
      'transports',
      'name',
      'created_at',
      'last_used_at',
    ],
  ),
  table(
    'grant_requests',
    ['grant_request_id'],
    [
      'seq',
      'grant_request_id',
      'client_id',
      'subject_id',
      'status',
      'expires_at',
      'package_id',
      'package_index',
      'body',
    ],
    { seq: 'rowid' },
  ),
  table('pairwise_subjects', ['client_id', 'pairwise_id'], ['client_id', 'pairwise_id', 'subject_id']),
  table('token_families', ['family_id'], ['family_id', 'client_id', 'subject_id', 'status', 'body']),
  table('family_grants', ['family_id', 'grant_id'], ['family_id', 'grant_id']),
  table('refresh_tokens', ['token_hash'], ['token_hash', 'family_id', 'status', 'expires_at', 'body']),
  table('refresh_chains', ['family_id'], ['family_id', 'seed', 'generation', 'issued_at', 'expires_at']),
  table('changes', ['seq'], ['seq', 'at', 'subject_id', 'kind', 'ids', 'grants']),
  table('audit_key_sets', ['set_id'], ['set_id', 'digest', 'keys']),
  table(
    'audit_events',
    ['seq'],
    [
      'seq',
      'event_id',
      'subject_id',
      'grant_id',
      'actor_kind',
      'actor_id',
      'action',
      'outcome',
      'detail',
      'key_set',
      'at',
      'at_ms',
      'ts',
    ],
  ),
  table(
    'a2a_tasks',
    ['task_id'],
    [
      'task_id',
      'owner',
      'context_id',
      'state',
      'created_at',
      'updated_at',
      'updated_ms',
      'body',
      'body_bytes',
      'counterpart',
    ],
  ),
];

/** The one-row tables each side's migrations create: their values are set, not inserted. */
export interface SingletonSpec {
  readonly name: string;
  /** The column that is always 1. */
  readonly one: string;
  readonly columns: readonly string[];
}

export const SINGLETONS: readonly SingletonSpec[] = [
  // The global profile version counter (profiles.version never repeats).
  { name: 'change_counter', one: 'id', columns: ['n'] },
  { name: 'audit_clock', one: 'one', columns: ['max_lag', 'key_generation'] },
  { name: 'audit_prune_horizon', one: 'one', columns: ['before_ms'] },
];

/**
 * Numbered tables, and the highest number each side ever gave. Where `neverReused`, the numbering
 * must go on after that mark, not after the highest number still held: a change-event seq, an
 * audit or history seq, is never given twice (a subscriber resuming from seq N must not be handed
 * a different event N). SQLite keeps that mark in sqlite_sequence (AUTOINCREMENT), PostgreSQL in
 * an identity sequence or, for the outbox, the change_seq row. The other two only need their
 * numbers unique and in order: SQLite numbers them on from the largest row (a rowid), PostgreSQL
 * from its sequence, which an upsert that finds its row (a key list already stored) still moves.
 */
export const NUMBERED: readonly {
  readonly table: string;
  readonly column: string;
  readonly neverReused: boolean;
}[] = [
  { table: 'claim_history', column: 'seq', neverReused: true },
  { table: 'changes', column: 'seq', neverReused: true },
  { table: 'audit_events', column: 'seq', neverReused: true },
  { table: 'audit_key_sets', column: 'set_id', neverReused: false },
  { table: 'grant_requests', column: 'seq', neverReused: false },
];
