import type { ClaimHistoryEntry, ClaimHistoryInput } from '../model/claim-history.ts';
import type { ProposalRecord, ProposalStatus } from '../model/proposal.ts';

// The write-back side of the store contract (proposals and claim history, migration 0005).
// StoreReader and StoreWriter in store.ts extend these interfaces; the conventions stated there
// (missing is undefined, ids never reused, stable order) hold here too.

type ProposalPatch = Partial<
  Pick<ProposalRecord, 'status' | 'decided_at' | 'decided_by' | 'applied_claim_id' | 'edited'>
>;

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
