import type { AuditEvent } from './audit-event.ts';
import type { Claim } from './claim.ts';

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
