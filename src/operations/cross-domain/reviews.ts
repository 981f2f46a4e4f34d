import { z } from 'zod';
import type { CrossDomainReviewRecord } from '../../model/cross-domain-review.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { recordAudit } from '../audit/audit-log.ts';
import type { Caller } from '../callers/caller.ts';
import { announce } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

// The subject's side of a cross-domain transfer review (SPEC §13.2, docs/cross-domain.md): list
// what waits for a decision, approve or reject it. Only the subject may; a grantee never can.

export const ReviewDecisionInput = z.strictObject({ review_id: z.string().min(1).max(200) });
export type ReviewDecisionInput = z.infer<typeof ReviewDecisionInput>;

export const ReviewListQuery = z.strictObject({
  status: z.enum(['pending', 'approved', 'rejected', 'all']).optional(),
});
export type ReviewListQuery = z.infer<typeof ReviewListQuery>;

/** A review as the subject sees it. */
export interface CrossDomainReview {
  readonly review_id: string;
  readonly grant_id: string;
  readonly grantee_id: string;
  readonly source_domains: string[];
  readonly target_domain: string;
  readonly mapped_keys: string[];
  readonly status: 'pending' | 'approved' | 'rejected';
  readonly created_at: string;
  readonly decided_at?: string;
}

function present(r: CrossDomainReviewRecord): CrossDomainReview {
  return {
    review_id: r.review_id,
    grant_id: r.grant_id,
    grantee_id: r.grantee_id,
    source_domains: [...r.source_domains],
    target_domain: r.target_domain,
    mapped_keys: [...r.mapped_keys],
    status: r.status,
    created_at: r.created_at,
    ...(r.decided_at !== undefined ? { decided_at: r.decided_at } : {}),
  };
}

function subjectOnly(caller: Caller): Result<string> {
  if (caller.kind !== 'subject') {
    return fail('access_denied', 'only the subject reviews cross-domain transfers; a grant token cannot');
  }
  return ok(caller.subjectId);
}

/** The subject's reviews, pending ones by default, oldest first. */
export async function listCrossDomainReviews(
  deps: Deps,
  caller: Caller,
  query: ReviewListQuery,
): Promise<Result<{ reviews: CrossDomainReview[] }>> {
  const subject = subjectOnly(caller);
  if (!subject.ok) return subject;
  const status = query.status ?? 'pending';
  const records = await deps.store.listCrossDomainReviewsBySubject(
    subject.value,
    status === 'all' ? undefined : status,
  );
  return ok({ reviews: records.map(present) });
}

export function approveCrossDomainReview(deps: Deps, caller: Caller, input: ReviewDecisionInput) {
  return decide(deps, caller, input, 'approved');
}

export function rejectCrossDomainReview(deps: Deps, caller: Caller, input: ReviewDecisionInput) {
  return decide(deps, caller, input, 'rejected');
}

/**
 * Decides a pending review once: a compare-and-set on its status and the audit event commit
 * together. Another subject's review answers exactly like a missing one.
 */
async function decide(
  deps: Deps,
  caller: Caller,
  input: ReviewDecisionInput,
  status: 'approved' | 'rejected',
): Promise<Result<{ review: CrossDomainReview }>> {
  const subject = subjectOnly(caller);
  if (!subject.ok) return subject;
  const now = deps.clock();
  return inTransaction(deps, async (tx): Promise<Result<{ review: CrossDomainReview }>> => {
    const current = await tx.store.getCrossDomainReview(input.review_id);
    if (current === undefined || current.subject_id !== subject.value) {
      return fail('not_found', 'there is no such cross-domain review for this subject');
    }
    const decided = await tx.store.decideCrossDomainReview(current.review_id, status, now.toISOString());
    if (decided === undefined) {
      return fail('conflict', `this review was already ${current.status}`);
    }
    await announce(
      tx,
      decided.subject_id,
      'cross_domain_review_decided',
      { review_ids: [decided.review_id], grant_ids: [decided.grant_id] },
      [decided.grant_id],
    );
    await recordAudit(
      tx,
      { kind: 'subject', id: subject.value },
      subject.value,
      {
        action: status === 'approved' ? 'cross_domain_approved' : 'cross_domain_rejected',
        grantId: decided.grant_id,
        claimKeys: decided.mapped_keys,
        detail: `${decided.review_id}: ${decided.source_domains.join(',')} -> ${decided.target_domain}`,
      },
      now,
    );
    return ok({ review: present(decided) });
  });
}
