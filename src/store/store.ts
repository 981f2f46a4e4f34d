import type { AuditAction, AuditEvent } from '../model/audit-event.ts';
import type { Claim } from '../model/claim.ts';
import type { AccessMode, ConsentGrant } from '../model/consent-grant.ts';
import type { ContextModifier } from '../model/context-modifier.ts';
import type { DefaultPolicy } from '../model/profile.ts';

// The persistence contract. Every method is async so that a networked implementation
// (PostgreSQL) fits the same interface as the embedded one (SQLite). Implementations must pass
// the shared contract suite in test/store/contract.ts.
//
// Conventions, for every implementation:
// - "missing" is `undefined`, never an exception; exceptions mean the store itself failed.
// - Writes are atomic: a method either applies all of its effect or none of it.
// - Ids are never reused: inserting an existing id is an error (a bug upstream), not an update,
//   except where a method says "upsert".
// - Lists come back in a stable order stated per method, so results are deterministic.
// - The store applies no policy: it returns what it holds; `operations/` decides who sees what.

/**
 * Thrown by a write that would give an id already used by another record to a new one (ids are
 * never reused). Operations turn it into a `conflict`; any other exception is a store failure.
 */
export class IdConflictError extends Error {
  readonly id: string;

  constructor(id: string, what: string) {
    super(`${what} ${id} already belongs to another record`);
    this.name = 'IdConflictError';
    this.id = id;
  }
}

export interface ProfileRecord {
  readonly profile_id: string;
  /** The internal subject id. Never shown to a grantee as it is (see auth/pairwise). */
  readonly subject_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly default_policy?: DefaultPolicy;
}

/** A grant as stored: the published object plus how it may be used. `grantee_id` is the client id. */
export interface GrantRecord extends ConsentGrant {
  readonly profile_id: string;
  readonly access_mode: AccessMode;
}

export interface ClientRecord {
  readonly client_id: string;
  readonly name: string;
  readonly redirect_uris: readonly string[];
  readonly kind: 'public' | 'confidential';
  /** SHA-256 (hex) of the client secret, for confidential clients. */
  readonly secret_hash?: string;
  readonly created_at: string;
}

export interface SigningKeyRecord {
  readonly kid: string;
  readonly alg: string;
  readonly private_jwk: Record<string, unknown>;
  readonly public_jwk: Record<string, unknown>;
  readonly created_at: string;
}

export interface AuditFilter {
  readonly subject_id: string;
  /** Only events under this grant. */
  readonly grant_id?: string;
  /** Only events whose actor has this id (a grantee's client id, or the subject). */
  readonly actor_id?: string;
  readonly action?: AuditAction;
  /** Inclusive lower bound on `at` (RFC 3339). */
  readonly since?: string;
  /** Exclusive upper bound on `at` (RFC 3339). */
  readonly until?: string;
  /** Opaque cursor from a previous page's `next_cursor`. */
  readonly cursor?: string;
  /** Page size, 1..500. */
  readonly limit: number;
}

export interface AuditPage {
  /** Oldest first. */
  readonly events: AuditEvent[];
  /** Present when more events follow. */
  readonly next_cursor?: string;
}

export interface StoreReader {
  /** The profile of a subject, or undefined. */
  getProfileBySubject(subjectId: string): Promise<ProfileRecord | undefined>;
  getProfile(profileId: string): Promise<ProfileRecord | undefined>;
  /** Every stored claim of a profile, ordered by namespace, key, claim_id. */
  listClaims(profileId: string): Promise<Claim[]>;
  /** Every context modifier of a profile, ordered by modifier_id. */
  listModifiers(profileId: string): Promise<ContextModifier[]>;
  /**
   * A grant by id, exactly as stored: `status` is what was last written ('active', 'revoked',
   * 'pending'); an active grant past `expires_at` is still returned as 'active' — deciding that
   * it is expired is policy's job (it takes the clock), not the store's.
   */
  getGrant(grantId: string): Promise<GrantRecord | undefined>;
  /** A subject's grants, newest `granted_at` first (ties by grant_id). */
  listGrantsBySubject(subjectId: string): Promise<GrantRecord[]>;
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  /** Every client, ordered by client_id. */
  listClients(): Promise<ClientRecord[]>;
  /** Signing keys, newest `created_at` first (ties by kid, descending). */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  getSetting(name: string): Promise<string | undefined>;
  listAudit(filter: AuditFilter): Promise<AuditPage>;
  /** Number of profiles; used to decide whether to seed the demo on first start. */
  countProfiles(): Promise<number>;
}

export interface StoreWriter {
  insertProfile(profile: ProfileRecord): Promise<void>;
  /** Sets `updated_at` (and `default_policy` when given). Returns false when the profile is missing. */
  touchProfile(profileId: string, updatedAt: string, defaultPolicy?: DefaultPolicy): Promise<boolean>;
  /** Upserts claims by claim_id into a profile. */
  putClaims(profileId: string, claims: readonly Claim[]): Promise<void>;
  /** Deletes claims by id; returns how many existed. */
  deleteClaims(profileId: string, claimIds: readonly string[]): Promise<number>;
  /** Upserts context modifiers by modifier_id into a profile. */
  putModifiers(profileId: string, modifiers: readonly ContextModifier[]): Promise<void>;
  /** Removes a profile with its claims and modifiers (grants and audit stay). False when missing. */
  deleteProfile(profileId: string): Promise<boolean>;
  insertGrant(grant: GrantRecord): Promise<void>;
  /**
   * Marks a grant revoked at `at`. Returns the grant as now stored; undefined when missing.
   * Revoking an already revoked grant keeps the first `revoked_at`.
   */
  revokeGrant(grantId: string, at: string): Promise<GrantRecord | undefined>;
  /** Upserts a client by client_id. */
  putClient(client: ClientRecord): Promise<void>;
  insertSigningKey(key: SigningKeyRecord): Promise<void>;
  /**
   * Stores `value` under `name` unless a value is already there; returns the value that is
   * stored afterwards (so concurrent first starts agree on one secret).
   */
  putSettingIfAbsent(name: string, value: string): Promise<string>;
  /** Appends audit events; they can never be changed or removed afterwards. */
  appendAudit(events: readonly AuditEvent[]): Promise<void>;
}

export interface StoreTx extends StoreReader, StoreWriter {}

export interface Store extends StoreTx {
  /**
   * Runs `fn` in one transaction: all of its writes commit together, or none do when it throws
   * (the error is rethrown). Reads inside see the transaction's own writes. Transactions are
   * serialized with respect to other writes; do no unrelated slow I/O inside.
   */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /** Closes the store; later calls fail. */
  close(): Promise<void>;
}
