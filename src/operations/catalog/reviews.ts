import { z } from 'zod';
import { DateTime } from '../../model/vocabulary.ts';
import {
  approveCrossDomainReview,
  listCrossDomainReviews,
  ReviewDecisionInput,
  ReviewListQuery,
  rejectCrossDomainReview,
} from '../cross-domain/reviews.ts';
import { defineOperation } from './contract.ts';

// Cross-domain transfer reviews (SPEC §13.2, docs/cross-domain.md): the subject lists and decides
// them. The rules live in operations/cross-domain/.

export const Review = z.strictObject({
  review_id: z.string(),
  grant_id: z.string(),
  grantee_id: z.string(),
  source_domains: z.array(z.string()),
  target_domain: z.string(),
  mapped_keys: z.array(z.string()),
  status: z.enum(['pending', 'approved', 'rejected']),
  created_at: DateTime,
  decided_at: DateTime.optional(),
});

const DECISION_ERRORS = ['invalid_request', 'access_denied', 'not_found', 'conflict'] as const;

export const listCrossDomainReviewsOperation = defineOperation({
  name: 'list_cross_domain_reviews',
  title: 'Cross-domain reviews',
  summary: "The subject's cross-domain transfer reviews (pending by default); subject token only",
  caller: 'caller',
  audit: [],
  input: ReviewListQuery,
  output: z.strictObject({ reviews: z.array(Review) }),
  errors: ['invalid_request', 'access_denied'],
  run: (deps, caller, input) => listCrossDomainReviews(deps, caller, input),
  agui: { writes: false },
  http: { method: 'GET', path: '/v1/consent/cross-domain/reviews', tag: 'consent', input: 'query' },
});

export const approveCrossDomainReviewOperation = defineOperation({
  name: 'approve_cross_domain_review',
  title: 'Approve a cross-domain transfer',
  summary: 'The subject approves a pending transfer: mapped core traits (never raw claims) may cross',
  caller: 'caller',
  audit: ['cross_domain_approved'],
  input: ReviewDecisionInput,
  output: z.strictObject({ review: Review }),
  errors: DECISION_ERRORS,
  run: (deps, caller, input) => approveCrossDomainReview(deps, caller, input),
  agui: { writes: true },
  http: { method: 'POST', path: '/v1/consent/cross-domain/approve', tag: 'consent', input: 'body' },
});

export const rejectCrossDomainReviewOperation = defineOperation({
  name: 'reject_cross_domain_review',
  title: 'Reject a cross-domain transfer',
  summary: 'The subject rejects a pending transfer: nothing from those domains ever crosses for the grant',
  caller: 'caller',
  audit: ['cross_domain_rejected'],
  input: ReviewDecisionInput,
  output: z.strictObject({ review: Review }),
  errors: DECISION_ERRORS,
  run: (deps, caller, input) => rejectCrossDomainReview(deps, caller, input),
  agui: { writes: true },
  http: { method: 'POST', path: '/v1/consent/cross-domain/reject', tag: 'consent', input: 'body' },
});
