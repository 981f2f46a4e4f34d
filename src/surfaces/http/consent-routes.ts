import { z } from 'zod';
import type { PpxFailure } from '../../model/errors.ts';
import { DateTime } from '../../model/vocabulary.ts';
import { approveGrantRequest, DecisionInput, rejectGrantRequest } from '../../operations/consent/decide.ts';
import { refreshGrantTokens } from '../../operations/consent/refresh.ts';
import { ConsentRequestInput, requestConsent } from '../../operations/consent/request.ts';
import {
  ExchangeInput,
  exchangeGrantRequest,
  invalidGrant,
  RefreshInput,
} from '../../operations/consent/tokens.ts';
import { AUTH_ERRORS, BODY_ERRORS, caller, type Route } from './route.ts';

// The consent flow over HTTP (WIRE-NOTES §2, docs/consent-flow.md): the routes only translate;
// every rule lives in src/operations/consent/. Concatenated into ROUTES by routes.ts.

/**
 * The one answer of the token and refresh endpoints to anything wrong with the grant, the tokens
 * or the body (WIRE-NOTES §2.3): it never says which check failed, or which field.
 */
const INVALID_GRANT: PpxFailure = invalidGrant().error;

const RejectInput = DecisionInput.omit({ narrow: true });

const RequestCreated = z.strictObject({
  grant_request_id: z.string(),
  status: z.literal('pending'),
  consent_url: z.url(),
  request_token: z.string(),
  expires_at: DateTime,
});

const Decision = z.strictObject({
  grant_request_id: z.string(),
  status: z.enum(['approved', 'rejected']),
  grant_id: z.string().optional(),
  redirect_to: z.url(),
});

const Tokens = z.strictObject({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.int().min(1),
  grant_id: z.string(),
  refresh_token: z.string().optional(),
});

export const CONSENT_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/consent/request',
    operationId: 'requestConsent',
    summary: 'A client asks a subject for a grant (PKCE S256); the pending request carries no authority',
    tag: 'consent',
    auth: 'none',
    body: ConsentRequestInput,
    response: RequestCreated,
    successStatus: 201,
    noStore: true,
    errors: [
      'invalid_request',
      'invalid_redirect_uri',
      'unknown_namespace',
      'unknown_client',
      'rate_limited',
      ...BODY_ERRORS,
    ],
    run: (deps, input) => requestConsent(deps, input.body as z.output<typeof ConsentRequestInput>),
  },
  {
    method: 'POST',
    path: '/v1/consent/approve',
    operationId: 'approveGrantRequest',
    summary: 'The subject approves a pending request, possibly narrowed; subject token only',
    tag: 'consent',
    auth: 'bearer',
    body: DecisionInput,
    response: Decision,
    errors: [...AUTH_ERRORS, 'invalid_request', 'access_denied', 'not_found', 'conflict', ...BODY_ERRORS],
    run: (deps, input) => approveGrantRequest(deps, caller(input), input.body as DecisionInput),
  },
  {
    method: 'POST',
    path: '/v1/consent/reject',
    operationId: 'rejectGrantRequest',
    summary: 'The subject rejects a pending request; subject token only',
    tag: 'consent',
    auth: 'bearer',
    body: RejectInput,
    response: Decision,
    errors: [...AUTH_ERRORS, 'invalid_request', 'access_denied', 'not_found', 'conflict', ...BODY_ERRORS],
    run: (deps, input) => rejectGrantRequest(deps, caller(input), input.body as z.infer<typeof RejectInput>),
  },
  {
    method: 'POST',
    path: '/v1/consent/token',
    operationId: 'exchangeGrantRequest',
    summary: 'Exchanges an approved request (request token, PKCE verifier, client) for tokens, at most once',
    tag: 'consent',
    auth: 'none',
    body: ExchangeInput,
    response: Tokens,
    noStore: true,
    uniformFailure: INVALID_GRANT,
    errors: ['invalid_grant', 'rate_limited', ...BODY_ERRORS],
    run: (deps, input) => exchangeGrantRequest(deps, input.body as z.infer<typeof ExchangeInput>),
  },
  {
    method: 'POST',
    path: '/v1/consent/refresh',
    operationId: 'refreshGrantTokens',
    summary: 'Rotates a refresh token; a rotated one presented again revokes its family and grant',
    tag: 'consent',
    auth: 'none',
    body: RefreshInput,
    response: Tokens,
    noStore: true,
    uniformFailure: INVALID_GRANT,
    errors: ['invalid_grant', 'grant_gone', 'rate_limited', ...BODY_ERRORS],
    run: (deps, input) => refreshGrantTokens(deps, input.body as z.infer<typeof RefreshInput>),
  },
];
