import type { Claim } from './claim.ts';
import type { ActorRef } from './proposal.ts';

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
