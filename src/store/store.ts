import type { SessionRecord, SubjectRecord } from '../model/account.ts';
import type { AuditAction, AuditEvent } from '../model/audit-event.ts';
import type { Claim, ClaimShape } from '../model/claim.ts';
import type { ClientRecord } from '../model/client.ts';
import type { ContextModifier } from '../model/context-modifier.ts';
import type { CrossDomainReviewRecord, CrossDomainReviewStatus } from '../model/cross-domain-review.ts';
import type { GrantRecord } from '../model/grant-record.ts';
import type { GrantRequestRecord, GrantRequestStatus } from '../model/grant-request.ts';
import type { DefaultPolicy } from '../model/profile.ts';
import type { ProfileRecord } from '../model/profile-record.ts';
import type { SigningKeyRecord } from '../model/signing-key.ts';
import type {
  FamilyEndReason,
  RefreshChainRecord,
  RefreshTokenRecord,
  TokenFamilyRecord,
} from '../model/token-family.ts';
import type { A2aTaskReader, A2aTaskWriter } from './a2a-task-store.ts';
import type { ChangeFeed } from './change-feed.ts';
import type { ChangeReader, ChangeWriter } from './change-store.ts';
import type { ConsentReceiptReader, ConsentReceiptWriter } from './consent-receipts.ts';
import type { PasskeyReader, PasskeyWriter } from './passkeys.ts';
import type { ProofLedger } from './proof-ledger.ts';
import type { RateCounter } from './rate-limits.ts';
import type { ResourceSubscriptionReader, ResourceSubscriptionWriter } from './resource-subscriptions.ts';
import type { WritebackReader, WritebackWriter } from './writeback-store.ts';

export type * from './a2a-task-store.ts';
export type * from './change-store.ts';
export type * from './consent-receipts.ts';
export type * from './passkeys.ts';
export type * from './resource-subscriptions.ts';
export type * from './writeback-store.ts';

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
  /** `oldest` (the default) pages from the first event on; `newest` from the latest back. */
  readonly order?: 'oldest' | 'newest';
}

export interface ProfileContent {
  readonly profile: ProfileRecord;
  readonly claims: readonly Claim[];
  readonly modifiers: readonly ContextModifier[];
}

export interface AuditPage {
  /** In the order asked for (oldest first by default). */
  readonly events: AuditEvent[];
  /**
   * Present when more events may follow. A listing reads a bounded number of rows
   * (sqlite/audit-queries.ts#AUDIT_MAX_EXAMINED), so a page may be short, even empty, and still
   * have one.
   */
  readonly next_cursor?: string;
}

/** Proposals and claim history (getProposal, listProposals, listClaimHistory): writeback-store.ts. */
/**
 * When claims of one shape (model/claim.ts#ClaimShape: what decides who may see a claim) last
 * changed in a profile: a claim of that shape was inserted, updated from or to it, or deleted
 * (RFC 3339, UTC). The shape is exactly `claimShape` of the claim: domains only for a core claim
 * that names some, a review only with a status.
 */
export interface ClaimChange extends ClaimShape {
  readonly changed_at: string;
}

/**
 * listChanges, latestChangeSeq (the change-event outbox): change-store.ts; getA2aTask,
 * listA2aTasks (A2A tasks, by owner): a2a-task-store.ts; listResourceSubscriptions (MCP resource
 * subscriptions, by grant): resource-subscriptions.ts; getConsentReceipt,
 * listConsentReceiptsBySubject, findConsentReceipt (signed consent receipts): consent-receipts.ts;
 * listPasskeys, getPasskey, getPasskeyTicket: passkeys.ts.
 */
export interface StoreReader
  extends WritebackReader,
    ChangeReader,
    A2aTaskReader,
    ResourceSubscriptionReader,
    ConsentReceiptReader,
    PasskeyReader {
  /** The profile of a subject, or undefined. */
  getProfileBySubject(subjectId: string): Promise<ProfileRecord | undefined>;
  getProfile(profileId: string): Promise<ProfileRecord | undefined>;
  /**
   * A profile with its claims and modifiers (as getProfile, listClaims and listModifiers give
   * them), in one call: what every read of a profile needs, which a store with a content cache
   * answers with one lookup (the read path of a small profile was mostly such lookups).
   */
  getProfileContent(profileId: string): Promise<ProfileContent | undefined>;
  /** Every stored claim of a profile, ordered by namespace, key, claim_id. */
  listClaims(profileId: string): Promise<readonly Claim[]>;
  /**
   * When claims of each shape a profile ever held last changed (insert, update — the shape before
   * and the shape after — or delete: a deleted claim's shape stays), ordered by namespace and key;
   * empty for a missing profile, and once it is deleted. Shared between callers (never written
   * to): the same array while the profile's version holds, where the store caches reads.
   */
  listClaimChanges(profileId: string): Promise<readonly ClaimChange[]>;
  /** Every context modifier of a profile, ordered by modifier_id. */
  listModifiers(profileId: string): Promise<readonly ContextModifier[]>;
  /**
   * A grant by id, exactly as stored: `status` is what was last written ('active', 'revoked',
   * 'pending'); an active grant past `expires_at` is still returned as 'active' — deciding that
   * it is expired is policy's job (it takes the clock), not the store's.
   */
  getGrant(grantId: string): Promise<GrantRecord | undefined>;
  /** A subject's grants, newest `granted_at` first (ties by grant_id). */
  listGrantsBySubject(subjectId: string): Promise<GrantRecord[]>;
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  /** The internal subject id behind a pairwise id shown to `clientId`, or undefined. */
  subjectForPairwise(clientId: string, pairwiseId: string): Promise<string | undefined>;
  /** Every client, ordered by client_id. */
  listClients(): Promise<ClientRecord[]>;
  /** Signing keys, newest `created_at` first (ties by kid, descending). */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  getSetting(name: string): Promise<string | undefined>;
  listAudit(filter: AuditFilter): Promise<AuditPage>;
  /** Number of profiles; used to decide whether to seed the demo on first start. */
  countProfiles(): Promise<number>;
  getSubject(subjectId: string): Promise<SubjectRecord | undefined>;
  /** By case-folded username. */
  getSubjectByUsername(username: string): Promise<SubjectRecord | undefined>;
  /** A session by the hash of its secret, whether or not it has expired (the caller checks). */
  getSession(sessionHash: string): Promise<SessionRecord | undefined>;
  getGrantRequest(grantRequestId: string): Promise<GrantRequestRecord | undefined>;
  /** The requests of one package, in the order of the client's authorization_details. */
  listGrantRequestsByPackage(packageId: string): Promise<GrantRequestRecord[]>;
  /**
   * A subject's consent requests still pending and live at `now` (their `expires_at` after it),
   * oldest first. An expired or withdrawn request is never listed, whatever its status says.
   */
  listPendingGrantRequestsBySubject(subjectId: string, now: string): Promise<GrantRequestRecord[]>;
  getTokenFamily(familyId: string): Promise<TokenFamilyRecord | undefined>;
  /**
   * A refresh token kept as a row (a family made before refresh chains), by hash, whatever its
   * status (the caller tells rotated from current).
   */
  getRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /** A family's refresh chain (its current generation and the seed its tokens are made with). */
  getRefreshChain(familyId: string): Promise<RefreshChainRecord | undefined>;
  /** Families covering a grant, so revoking the grant can end them. Ordered by family_id. */
  listTokenFamiliesByGrant(grantId: string): Promise<TokenFamilyRecord[]>;
  getCrossDomainReview(reviewId: string): Promise<CrossDomainReviewRecord | undefined>;
  /** A grant's reviews, oldest `created_at` first (ties by review_id). */
  listCrossDomainReviewsByGrant(grantId: string): Promise<CrossDomainReviewRecord[]>;
  /** A subject's reviews, optionally of one status, oldest `created_at` first (ties by review_id). */
  listCrossDomainReviewsBySubject(
    subjectId: string,
    status?: CrossDomainReviewStatus,
  ): Promise<CrossDomainReviewRecord[]>;
}

/**
 * insertProposal, transitionProposal (compare-and-set), appendClaimHistory: writeback-store.ts;
 * appendChange, markGrantExpiryAnnounced: change-store.ts; putA2aTask: a2a-task-store.ts;
 * addResourceSubscription (capped), removeResourceSubscription, clearResourceSubscriptions:
 * resource-subscriptions.ts; insertConsentReceipt: consent-receipts.ts; passkeys and their
 * tickets: passkeys.ts.
 */
export interface StoreWriter
  extends WritebackWriter,
    ChangeWriter,
    A2aTaskWriter,
    ResourceSubscriptionWriter,
    ConsentReceiptWriter,
    PasskeyWriter {
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
  /** Sets a setting, replacing any value it had. */
  putSetting(name: string, value: string): Promise<void>;
  /** Removes a setting; false when it was not there. */
  deleteSetting(name: string): Promise<boolean>;
  /**
   * Appends audit events; they can never be changed afterwards, and removed only by pruning
   * (`pruneAudit`): oldest first, everything before a horizon that only moves forward.
   */
  appendAudit(events: readonly AuditEvent[]): Promise<void>;
  /**
   * Moves the prune horizon to `before` (never back) and removes up to `limit` of the events from
   * before it, oldest first. Returns how many went; fewer than `limit` means none are left.
   */
  pruneAudit(before: string, limit: number): Promise<number>;
  /** Removes the claim-key lists no event refers to any more; returns how many. */
  pruneAuditKeySets(): Promise<number>;
  /**
   * Removes the refresh tokens that can never be exchanged again: expired at `now`, or of a
   * revoked family; and so the refresh chains (their seeds) of such families, whose current token
   * expired or whose family was revoked. Returns how many rows went, tokens and chains.
   */
  pruneRefreshTokens(now: string): Promise<number>;
  /**
   * Removes up to `limit` consent requests that expired before `before`, whatever their status,
   * oldest first. Returns how many; fewer than `limit` means none are left.
   */
  pruneGrantRequests(before: string, limit: number): Promise<number>;
  /**
   * Removes up to `limit` self-registered clients (source `dynamic` or `metadata_document`)
   * created before `createdBefore` that no grant and no stored consent request names. Operator
   * clients are never removed. Returns how many; fewer than `limit` means none are left.
   */
  pruneUnusedClients(createdBefore: string, limit: number): Promise<number>;
  /** Inserts a subject; a taken subject_id or username throws IdConflictError. */
  insertSubject(subject: SubjectRecord): Promise<void>;
  insertSession(session: SessionRecord): Promise<void>;
  /** Removes a session (sign-out); false when it was not there. */
  deleteSession(sessionHash: string): Promise<boolean>;
  insertGrantRequest(request: GrantRequestRecord): Promise<void>;
  /** Records that `clientId` knows `subjectId` as `pairwiseId` (idempotent). */
  rememberPairwiseSubject(clientId: string, pairwiseId: string, subjectId: string): Promise<void>;
  /**
   * Compare-and-set: applies `patch` only while the request's status is `expected`. Returns the
   * request as stored afterwards, or undefined when it is missing or its status was not
   * `expected` — of two concurrent transitions from the same status, exactly one succeeds.
   */
  transitionGrantRequest(
    grantRequestId: string,
    expected: GrantRequestStatus,
    patch: Partial<
      Pick<GrantRequestRecord, 'status' | 'grant_id' | 'decided_at' | 'draft' | 'oauth' | 'expires_at'>
    >,
  ): Promise<GrantRequestRecord | undefined>;
  /**
   * Moves a grant's expiry earlier (never later): a single-use grant ends when the one token it
   * gave expires. Returns the grant as stored afterwards; undefined when missing.
   */
  shortenGrantExpiry(grantId: string, expiresAt: string): Promise<GrantRecord | undefined>;
  insertTokenFamily(family: TokenFamilyRecord): Promise<void>;
  /**
   * Marks a family revoked (keeping the first revoked_at, and the first `reason` given with it:
   * a later revocation never rewrites why it ended); false when missing.
   */
  revokeTokenFamily(familyId: string, at: string, reason?: FamilyEndReason): Promise<boolean>;
  /** A refresh token as a row: only families made before refresh chains have them (tests, imports). */
  insertRefreshToken(token: RefreshTokenRecord): Promise<void>;
  /**
   * Compare-and-set rotation of a token kept as a row: marks `oldHash` rotated and starts the
   * family's chain with `next`, only while `oldHash` is `current` and its family active. Returns
   * false otherwise (nothing written) — of two concurrent rotations of one token, exactly one
   * succeeds. A family that has a chain already throws, and the mark is undone with it.
   */
  rotateRefreshToken(oldHash: string, next: RefreshChainRecord): Promise<boolean>;
  /** Starts a family's refresh chain; a family that has one already throws. */
  insertRefreshChain(chain: RefreshChainRecord): Promise<void>;
  /**
   * Compare-and-set rotation of a chain: moves the family's chain from `generation` to the next,
   * its current token then issued and expiring at `next`'s times, only while `generation` is the
   * current one and the family active. Returns false otherwise (nothing written) — of two
   * concurrent rotations of one token, exactly one succeeds.
   */
  advanceRefreshChain(
    familyId: string,
    generation: number,
    next: { readonly issued_at: string; readonly expires_at: string },
  ): Promise<boolean>;
  /** Inserts a review; a taken review_id throws IdConflictError. */
  insertCrossDomainReview(review: CrossDomainReviewRecord): Promise<void>;
  /**
   * Compare-and-set: decides a review only while it is `pending`. Returns the review as stored
   * afterwards, or undefined when it is missing or already decided (of two concurrent decisions,
   * exactly one succeeds).
   */
  decideCrossDomainReview(
    reviewId: string,
    status: 'approved' | 'rejected',
    decidedAt: string,
  ): Promise<CrossDomainReviewRecord | undefined>;
}

export interface StoreTx extends StoreReader, StoreWriter {}

/**
 * What a transaction writes, so that a store with several writers at once (PostgreSQL) serializes
 * it only with the transactions it can conflict with (docs/store.md, "Concurrency, operation by
 * operation"). It is the operation's promise, made before the transaction reads anything:
 *
 * - `{ subject }`: it writes only that person's data (profile, claims, grants, consent requests,
 *   token families, proposals, reviews, A2A tasks and MCP resource subscriptions of their grants,
 *   their audit events and change events). Serialized with the other transactions of that subject
 *   and with unscoped ones.
 * - `{ family }`: it writes only that token family's refresh tokens, by compare-and-set (a
 *   rotation), and its audit events. Serialized with that family's other rotations and with
 *   unscoped transactions; a subject's transactions (which may end the family) do not wait for it,
 *   since the compare-and-set reads the family's status in its own statement.
 *   With `small: true` it also promises to write a few rows of bounded size (an A2A task's save
 *   and its grant's trim), which SQLite then journals in memory (connections.ts#begin). With
 *   `unaudited: true` it promises not to touch the audit log (no append, prune or listing: its tx
 *   refuses them, tx-shell.ts#AUDIT_METHODS), so that SQLite need not move its audit journal into
 *   the log before it (sqlite/audit-journal.ts#beforeWrite, a commit of its own).
 * - `{ area }`: it writes only the registered clients, the signing keys or the settings.
 * - none: it may write anything; serialized with every other write (the safe default).
 *
 * Every exactly-once step stays in the SQL's own compare-and-set whatever the scope. SQLite has
 * one writer and ignores it.
 */
export type TransactionScope =
  | { readonly subject: string; readonly small?: true; readonly unaudited?: true }
  | { readonly family: string }
  | { readonly area: 'clients' | 'signing_keys' | 'settings' };

/**
 * The store as operations see it outside a transaction (Deps.store): every read, the audit log,
 * and `transaction` as the one way to write. A change to a person's data and its change event
 * must commit together, so no writer is callable here; audit appends are not changes (they are
 * group-committed on their own, every read makes one).
 */
export interface ProviderStore extends StoreReader, Pick<StoreWriter, 'appendAudit'> {
  /**
   * Runs `fn` in one transaction: all of its writes commit together, or none do when it throws
   * (the error is rethrown). Reads inside see the transaction's own writes. Transactions are
   * serialized with respect to other writes; do no unrelated slow I/O inside. The change events
   * `fn` appended are published to the change feed after COMMIT; a rollback publishes nothing.
   */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>, scope?: TransactionScope): Promise<T>;
  /** Closes the store (ending every change subscription); later calls fail. */
  close(): Promise<void>;
  /**
   * Runs `fn` (a request) with its reads seeing every commit that completed before it began, from
   * any instance, at the cost of one check instead of one per read: PostgreSQL's caches take one
   * wait now (postgres/record-cache.ts), SQLite's check `data_version` once a request
   * (sqlite/record-cache.ts). Absent where every read sees them anyway.
   */
  readonly freshReads?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/**
 * A store implementation: every method of the contract, including the autocommit writers (each
 * one its own transaction; the contract tests and the composition root use them), and the
 * change feed it publishes committed change events to.
 */
export interface Store extends StoreTx, ProviderStore {
  /** Committed change events, delivered after commit (change-feed.ts). */
  readonly changes: ChangeFeed;
  /**
   * A rate counter every instance on this store shares (PostgreSQL); absent when the store has
   * none (SQLite: one process serves it), and the provider counts in its own memory.
   */
  readonly sharedRateCounter?: RateCounter;
  /**
   * The DPoP replay ledger every instance on this store shares (PostgreSQL); absent when the
   * store has none (SQLite: one process serves it), and the provider keeps it in memory.
   */
  readonly sharedProofLedger?: ProofLedger;
}
