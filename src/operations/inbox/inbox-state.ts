import type { Claim } from '../../model/claim.ts';
import type { ConsentGrant } from '../../model/consent-grant.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { ProposalRecord } from '../../model/proposal.ts';
import { reachOf } from '../../policy/scope.ts';
import { isClaimVisible } from '../../policy/visibility.ts';
import type { Caller } from '../callers/caller.ts';
import { type CrossDomainReview, listCrossDomainReviews } from '../cross-domain/reviews.ts';
import type { Deps } from '../deps.ts';
import { listConsentGrants } from '../grants/consent-grants.ts';

// The person's inbox state (WIRE-NOTES §7, bindings/ag-ui.md "State snapshot shape"): what the
// AG-UI inbox stream snapshots and then patches. It is made from the same readers the subject's
// own operations use, so the stream never shows what the HTTP API would not.

/** A write-back proposal queued for the person (docs/writeback.md). */
export interface PendingProposal {
  readonly kind: 'writeback_proposal';
  readonly proposal_id: string;
  readonly grant_id: string;
  readonly client_id: string;
  readonly created_at: string;
  /** The claim as proposed (its review_status is pending_confirmation). */
  readonly claim: Claim;
  readonly reason?: string;
  readonly target_claim_id?: string;
  readonly purpose?: string;
}

/** A cross-domain transfer awaiting the person's decision (docs/cross-domain.md). */
export interface PendingCrossDomainReview extends CrossDomainReview {
  readonly kind: 'cross_domain_review';
}

type PendingReview = PendingProposal | PendingCrossDomainReview;

export interface InboxState {
  /**
   * The seq of the last change event the state reflects (at least): a client that reconnects
   * passes it back as `forwardedProps.since`. Inside the state, since the AG-UI client strips
   * unknown members of its events.
   */
  readonly seq: number;
  /** Null while the person has no profile (never had one, or deleted it; grants stay). */
  readonly profile_id: string | null;
  readonly claims: readonly Claim[];
  /** Oldest first (ties by id), proposals and reviews interleaved. */
  readonly pending_reviews: readonly PendingReview[];
  /** Newest grant first, as the subject's grant listing orders them. */
  readonly active_grants: readonly ConsentGrant[];
}

/**
 * The grants of a state that show `claim` to their app right now, by the policy's own
 * visibility rules (namespaces, keys, domains, cross-domain transfer): what "who can see it" says.
 */
export function grantsShowing(state: Pick<InboxState, 'active_grants'>, claim: Claim): ConsentGrant[] {
  return state.active_grants.filter((g) => isClaimVisible(reachOf(g), claim));
}

/**
 * The inbox state of the caller's own profile, said to reflect `seq`. Read `seq` (the outbox's
 * latest, or the event being answered) before calling: what is read here is then at least as new
 * as it, so a client resuming from it misses nothing. The reads are not one snapshot of the
 * store; a change committed meanwhile shows here and again in its own event's state.
 *
 * Reading the grants announces any found past their expiry (grants/consent-grants.ts#listConsentGrants), which
 * is how an expiry reaches a stream that nothing else reads.
 */
export async function loadInboxState(deps: Deps, caller: Caller, seq: number): Promise<Result<InboxState>> {
  if (caller.kind !== 'subject') {
    return fail('access_denied', 'only the subject reviews their own profile; a grant token cannot');
  }
  const profile = await deps.store.getProfileBySubject(caller.subjectId);
  const content = profile ? await deps.store.getProfileContent(profile.profile_id) : undefined;
  const proposals = profile ? await deps.store.listProposals(profile.profile_id, 'pending') : [];
  const reviews = await listCrossDomainReviews(deps, caller, { status: 'pending' });
  if (!reviews.ok) return reviews;
  const grants = await listConsentGrants(deps, caller);
  if (!grants.ok) return grants;
  return ok({
    seq,
    profile_id: profile?.profile_id ?? null,
    // SPEC §5.2 `review.user_visible`: a claim marked not visible to the person stays out of
    // their review (absent means visible).
    claims: (content?.claims ?? []).filter((c) => c.review?.user_visible !== false),
    pending_reviews: [
      ...proposals.map(pendingProposal),
      ...reviews.value.reviews.map((r): PendingCrossDomainReview => ({ kind: 'cross_domain_review', ...r })),
    ].sort(oldestFirst),
    active_grants: grants.value.grants.filter((g) => g.status === 'active'),
  });
}

function pendingProposal(p: ProposalRecord): PendingProposal {
  return {
    kind: 'writeback_proposal',
    proposal_id: p.proposal_id,
    grant_id: p.grant_id,
    client_id: p.client_id,
    created_at: p.created_at,
    claim: p.claim,
    ...(p.reason !== undefined ? { reason: p.reason } : {}),
    ...(p.target_claim_id !== undefined ? { target_claim_id: p.target_claim_id } : {}),
    ...(p.purpose !== undefined ? { purpose: p.purpose } : {}),
  };
}

function idOf(r: PendingReview): string {
  return r.kind === 'writeback_proposal' ? r.proposal_id : r.review_id;
}

function oldestFirst(a: PendingReview, b: PendingReview): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0;
}
