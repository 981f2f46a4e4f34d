import { z } from 'zod';
import { DateTime } from '../../model/vocabulary.ts';
import {
  approveCrossDomainReview,
  listCrossDomainReviews,
  ReviewDecisionInput,
  ReviewListQuery,
  rejectCrossDomainReview,
} from '../../operations/cross-domain/reviews.ts';
import { AUTH_ERRORS, BODY_ERRORS, caller, type Route } from './route.ts';

// Cross-domain transfer reviews over HTTP (SPEC §13.2, docs/cross-domain.md): the subject lists
// and decides them. The routes only translate; the rules live in src/operations/cross-domain/.
// Concatenated into ROUTES by routes.ts.

const DECISION_ERRORS = [...AUTH_ERRORS, 'invalid_request', 'access_denied', 'not_found', 'conflict'];

const Review = z.strictObject({
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

export const REVIEW_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/consent/cross-domain/reviews',
    operationId: 'listCrossDomainReviews',
    summary: "The subject's cross-domain transfer reviews (pending by default); subject token only",
    tag: 'consent',
    auth: 'bearer',
    query: ReviewListQuery,
    response: z.strictObject({ reviews: z.array(Review) }),
    errors: [...AUTH_ERRORS, 'invalid_request', 'access_denied'],
    run: (deps, input) => listCrossDomainReviews(deps, caller(input), input.query as ReviewListQuery),
  },
  {
    method: 'POST',
    path: '/v1/consent/cross-domain/approve',
    operationId: 'approveCrossDomainReview',
    summary: 'The subject approves a pending transfer: mapped core traits (never raw claims) may cross',
    tag: 'consent',
    auth: 'bearer',
    body: ReviewDecisionInput,
    response: z.strictObject({ review: Review }),
    errors: [...DECISION_ERRORS, ...BODY_ERRORS],
    run: (deps, input) => approveCrossDomainReview(deps, caller(input), input.body as ReviewDecisionInput),
  },
  {
    method: 'POST',
    path: '/v1/consent/cross-domain/reject',
    operationId: 'rejectCrossDomainReview',
    summary: 'The subject rejects a pending transfer: nothing from those domains ever crosses for the grant',
    tag: 'consent',
    auth: 'bearer',
    body: ReviewDecisionInput,
    response: z.strictObject({ review: Review }),
    errors: [...DECISION_ERRORS, ...BODY_ERRORS],
    run: (deps, input) => rejectCrossDomainReview(deps, caller(input), input.body as ReviewDecisionInput),
  },
];
