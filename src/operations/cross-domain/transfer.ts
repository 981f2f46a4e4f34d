import { randomUUID } from 'node:crypto';
import type { Claim } from '../../model/claim.ts';
import type { CrossDomainReviewRecord, CrossDomainReviewStatus } from '../../model/cross-domain-review.ts';
import type { Scope } from '../../policy/scope.ts';
import { decideTransfer, planTransfer, type TransferPlan } from '../../policy/trait-mapping.ts';
import { recordAudit } from '../audit/audit-log.ts';
import type { Caller } from '../callers/caller.ts';
import { announce } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

/** What a grantee is told about a cross-domain review: its id and status, nothing else. */
export interface CrossDomainReviewNotice {
  readonly review_id: string;
  readonly status: CrossDomainReviewStatus;
}

export interface CrossDomainTransfer {
  /** Mapped core traits the read may include (empty unless the subject approved). */
  readonly mapped: Claim[];
  readonly notice?: CrossDomainReviewNotice;
}

const NOTHING: CrossDomainTransfer = { mapped: [] };

export function newReviewId(): string {
  return `ppx:review:${randomUUID()}`;
}

/**
 * SPEC §13.2 at request time, for a grantee's read under `allow_with_review`: policy decides which
 * source domains the grant's scope could map from and whether the subject's reviews let the mapped
 * traits through; this loads the reviews and, for source domains no review covers yet, creates a
 * pending one for the subject to decide. Which domains those are depends on the scope alone, never
 * on the claims, so the review (and the notice) is the same whether or not claims of another
 * domain exist (docs/cross-domain.md). Raw cross-domain claims are never returned here.
 */
export async function crossDomainTransfer(
  deps: Deps,
  caller: Caller,
  scope: Scope,
  claims: readonly Claim[],
  now: Date,
): Promise<CrossDomainTransfer> {
  if (caller.kind !== 'grant' || scope.crossDomain !== 'allow_with_review') return NOTHING;
  const plan = planTransfer(scope, claims, now);
  if (plan.domains.length === 0) return NOTHING;
  const grantId = scope.grant.grant_id;
  const decision = decideTransfer(plan, await deps.store.listCrossDomainReviewsByGrant(grantId));
  if (decision.uncovered.length === 0) {
    return { mapped: decision.include, ...(decision.notice ? { notice: decision.notice } : {}) };
  }
  const created = await requestReview(deps, caller, scope, plan, now);
  if (created === undefined) return { mapped: decision.include };
  return { mapped: decision.include, notice: { review_id: created.review_id, status: created.status } };
}

/**
 * Creates the pending review for the domains no review covers, in one transaction that looks
 * again first, so two concurrent reads create one review. Only for a grant the store holds (the
 * consent page previews a grant that does not exist yet).
 */
async function requestReview(
  deps: Deps,
  caller: Caller & { kind: 'grant' },
  scope: Scope,
  plan: TransferPlan,
  now: Date,
): Promise<CrossDomainReviewRecord | undefined> {
  const grant = scope.grant;
  return inTransaction(deps, async (tx) => {
    const stored = await tx.store.getGrant(grant.grant_id);
    if (stored === undefined || stored.grantee_id !== caller.clientId) return undefined;
    const again = decideTransfer(plan, await tx.store.listCrossDomainReviewsByGrant(grant.grant_id));
    if (again.uncovered.length === 0) {
      const id = again.notice?.review_id;
      return id === undefined ? undefined : tx.store.getCrossDomainReview(id);
    }
    const mappedKeys = new Set(again.uncovered.flatMap((d) => plan.keys.get(d) ?? []));
    const review: CrossDomainReviewRecord = {
      review_id: newReviewId(),
      grant_id: grant.grant_id,
      grantee_id: grant.grantee_id,
      subject_id: grant.subject_id,
      source_domains: again.uncovered,
      target_domain: plan.target,
      status: 'pending',
      mapped_keys: [...mappedKeys].sort(),
      created_at: now.toISOString(),
    };
    await tx.store.insertCrossDomainReview(review);
    await announce(
      tx,
      review.subject_id,
      'cross_domain_review_requested',
      { review_ids: [review.review_id], grant_ids: [review.grant_id] },
      [review.grant_id],
    );
    await recordAudit(
      tx,
      { kind: 'grantee', id: caller.clientId },
      grant.subject_id,
      {
        action: 'cross_domain_review_requested',
        grantId: grant.grant_id,
        detail: `${review.review_id}: ${review.source_domains.join(',')} -> ${review.target_domain}`,
      },
      now,
    );
    return review;
  });
}
