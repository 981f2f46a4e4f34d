import type { AuditEvent } from '../model/audit-event.ts';
import type { Claim } from '../model/claim.ts';

// The write-back side of the store contract (proposals and claim history, migration 0005).
// StoreReader and StoreWriter in store.ts extend these interfaces; the conventions stated there
// (missing is undefined, ids never reused, stable order) hold here too.

export type ProposalStatus = 'pending' | 'confirmed' | 'rejected' | 'applied';

/** Who did something: the subject, a grantee (its client id), or the operator. */
export type ActorRef = AuditEvent['actor'];

/**
 * One claim a grantee proposed under a grant (SPEC §9 propose_updates), with its provenance:
 * which grantee, under which grant, when. `applied` proposals went through the grant's
 * writeback policy directly; `pending` ones wait for the subject.
 */
export interface ProposalRecord {
  readonly proposal_id: string;
  readonly profile_id: string;
  readonly grant_id: string;
  readonly client_id: string;
  readonly status: ProposalStatus;
  readonly created_at: string;
  /** The claim as proposed; a queued one carries `review.review_status: pending_confirmation`. */
  readonly claim: Claim;
  /** Why it was queued (or applied). */
  readonly reason?: string;
  /** The stored claim the proposal updates, when one existed under its key at proposal time. */
  readonly target_claim_id?: string;
  readonly purpose?: string;
  readonly decided_at?: string;
  readonly decided_by?: ActorRef;
  /** The claim written when the proposal was applied, confirmed or edited. */
  readonly applied_claim_id?: string;
  /** Set when the subject confirmed an edited version rather than the proposal as made. */
  readonly edited?: boolean;
}

export type ProposalPatch = Partial<
  Pick<ProposalRecord, 'status' | 'decided_at' | 'decided_by' | 'applied_claim_id' | 'edited'>
>;

export type ClaimChange =
  | 'created'
  | 'updated'
  | 'confirmed'
  | 'edited'
  | 'deleted'
  | 'applied_proposal'
  | 'imported';

/** One change to one claim: the claim as it was afterwards (null once deleted), who, and when. */
export interface ClaimHistoryInput {
  readonly claim_id: string;
  readonly profile_id: string;
  readonly at: string;
  readonly claim: Claim | null;
  readonly change: ClaimChange;
  readonly actor: ActorRef;
  readonly grant_id?: string;
  readonly proposal_id?: string;
}

/** A history entry as read back: its position in the append-only log comes with it. */
export interface ClaimHistoryEntry extends ClaimHistoryInput {
  readonly seq: number;
}

export interface ClaimHistoryFilter {
  readonly profile_id: string;
  readonly claim_id?: string;
  /** Inclusive lower bound on `at` (RFC 3339). */
  readonly since?: string;
  /** Exclusive upper bound on `at` (RFC 3339). */
  readonly until?: string;
  /** Opaque cursor from a previous page's `next_cursor`; an invalid one throws RangeError. */
  readonly cursor?: string;
  /** Page size, 1..500. */
  readonly limit: number;
}

export interface ClaimHistoryPage {
  /** Oldest first (append order). */
  readonly entries: ClaimHistoryEntry[];
  /** Present when more entries follow. */
  readonly next_cursor?: string;
}

export interface WritebackReader {
  getProposal(proposalId: string): Promise<ProposalRecord | undefined>;
  /** A profile's proposals, optionally of one status, oldest `created_at` first (ties by id). */
  listProposals(profileId: string, status?: ProposalStatus): Promise<ProposalRecord[]>;
  listClaimHistory(filter: ClaimHistoryFilter): Promise<ClaimHistoryPage>;
}

export interface WritebackWriter {
  /** Inserts a proposal; a used proposal_id is an error. */
  insertProposal(proposal: ProposalRecord): Promise<void>;
  /**
   * Compare-and-set: applies `patch` only while the proposal's status is `expected`. Returns the
   * proposal as stored afterwards, or undefined when it is missing or its status was not
   * `expected` — of two concurrent decisions on one proposal, exactly one succeeds.
   */
  transitionProposal(
    proposalId: string,
    expected: ProposalStatus,
    patch: ProposalPatch,
  ): Promise<ProposalRecord | undefined>;
  /** Deletes context modifiers of a profile by id; returns how many existed. */
  deleteModifiers(profileId: string, modifierIds: readonly string[]): Promise<number>;
  /** Appends history entries in order; they can never be changed or removed afterwards. */
  appendClaimHistory(entries: readonly ClaimHistoryInput[]): Promise<void>;
}
