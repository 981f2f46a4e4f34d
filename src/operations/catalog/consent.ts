import { z } from 'zod';
import type { PpxFailure } from '../../model/errors.ts';
import { DateTime } from '../../model/vocabulary.ts';
import { approveGrantRequest, DecisionInput, rejectGrantRequest } from '../consent/decide.ts';
import { refreshGrantTokens } from '../consent/refresh.ts';
import { ConsentRequestInput, requestConsent } from '../consent/request.ts';
import { ExchangeInput, exchangeGrantRequest, invalidGrant, RefreshInput } from '../consent/tokens.ts';
import { defineOperation } from './contract.ts';

// The consent flow over HTTP (WIRE-NOTES §2, docs/consent-flow.md): a client asks, the subject
// decides, the client exchanges and refreshes. Every rule lives in operations/consent/.

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

/**
 * `grant_id` names the grant of an ordinary token; a refresh token of a grant package (issued
 * through OAuth, WIRE-NOTES §4) refreshes to a package token, which names its `grant_ids`.
 */
export const Tokens = z.strictObject({
  access_token: z.string(),
  token_type: z.enum(['Bearer', 'DPoP']),
  expires_in: z.int().min(1),
  grant_id: z.string().optional(),
  grant_ids: z.array(z.string()).optional(),
  refresh_token: z.string().optional(),
  consent_receipt: z
    .string()
    .optional()
    .describe('The signed receipt of the approval (compact JWS, docs/receipts.md); first exchange only'),
});

const DECISION_ERRORS = ['invalid_request', 'access_denied', 'not_found', 'conflict'] as const;

export const requestConsentOperation = defineOperation({
  name: 'request_consent',
  title: 'Ask for consent',
  summary: 'A client asks a subject for a grant (PKCE S256); the pending request carries no authority',
  caller: 'public',
  audit: [],
  input: ConsentRequestInput,
  output: RequestCreated,
  errors: ['invalid_request', 'invalid_redirect_uri', 'unknown_namespace', 'unknown_client'],
  run: (deps, _caller, input) => requestConsent(deps, input),
  http: {
    method: 'POST',
    path: '/v1/consent/request',
    tag: 'consent',
    input: 'body',
    successStatus: 201,
    noStore: true,
  },
});

export const approveGrantRequestOperation = defineOperation({
  name: 'approve_grant_request',
  title: 'Approve a consent request',
  summary: 'The subject approves a pending request, possibly narrowed; subject token only',
  caller: 'caller',
  audit: ['grant_created'],
  input: DecisionInput,
  output: Decision,
  errors: DECISION_ERRORS,
  run: (deps, caller, input) => approveGrantRequest(deps, caller, input),
  http: { method: 'POST', path: '/v1/consent/approve', tag: 'consent', input: 'body' },
});

export const rejectGrantRequestOperation = defineOperation({
  name: 'reject_grant_request',
  title: 'Reject a consent request',
  summary: 'The subject rejects a pending request; subject token only',
  caller: 'caller',
  audit: ['consent_rejected'],
  input: RejectInput,
  output: Decision,
  errors: DECISION_ERRORS,
  run: (deps, caller, input) => rejectGrantRequest(deps, caller, input),
  http: { method: 'POST', path: '/v1/consent/reject', tag: 'consent', input: 'body' },
});

export const exchangeGrantRequestOperation = defineOperation({
  name: 'exchange_grant_request',
  title: 'Exchange an approved request',
  summary: 'Exchanges an approved request (request token, PKCE verifier, client) for tokens, at most once',
  caller: 'public',
  audit: ['token_issued'],
  input: ExchangeInput,
  output: Tokens,
  errors: ['invalid_grant', 'invalid_dpop_proof'],
  run: (deps, _caller, input, facts) => exchangeGrantRequest(deps, input, facts?.dpop),
  http: {
    method: 'POST',
    path: '/v1/consent/token',
    tag: 'consent',
    input: 'body',
    noStore: true,
    uniformFailure: INVALID_GRANT,
    dpop: 'token-endpoint',
  },
});

export const refreshGrantTokensOperation = defineOperation({
  name: 'refresh_grant_tokens',
  title: 'Refresh tokens',
  summary: 'Rotates a refresh token; a rotated one presented again revokes its family and grant',
  caller: 'public',
  audit: ['token_refreshed'],
  input: RefreshInput,
  output: Tokens,
  errors: ['invalid_grant', 'grant_gone', 'invalid_dpop_proof'],
  run: (deps, _caller, input, facts) => refreshGrantTokens(deps, input, undefined, facts?.dpop),
  http: {
    method: 'POST',
    path: '/v1/consent/refresh',
    tag: 'consent',
    input: 'body',
    noStore: true,
    uniformFailure: INVALID_GRANT,
    // refreshGrantTokens answers the one invalid_grant for every check a stranger could probe;
    // it says more (a spent token, an expired access) only to the client holding the token.
    uniformFailureFor: 'body',
    dpop: 'token-endpoint',
  },
});
