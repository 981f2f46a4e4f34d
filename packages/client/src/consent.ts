import { createPkce } from './pkce.ts';
import { fail, ok, type Result } from './result.ts';
import type { GrantRequest } from './types.ts';

/** A consent-v2 request waiting for the person: keep it (all of it) until the exchange. */
export interface PendingGrant {
  readonly grantRequestId: string;
  /** Where to send the person: they sign in there, see what is asked, and decide. */
  readonly consentUrl: string;
  /** The request's capability, returned once; with the verifier it exchanges the approval for tokens. */
  readonly requestToken: string;
  readonly codeVerifier: string;
  readonly expiresAt: string;
}

/** The request body of `POST /v1/consent/request` with a fresh PKCE challenge. */
export async function consentRequestBody(
  clientId: string,
  request: GrantRequest,
): Promise<{ body: Record<string, unknown>; verifier: string }> {
  const pkce = await createPkce();
  return {
    verifier: pkce.verifier,
    body: {
      ...request,
      client_id: clientId,
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    },
  };
}

export type Decision = 'approve' | 'reject';

/**
 * The person's decision from the browser's return to the redirect URI
 * (`?grant_request_id=…&decision=approve|reject`): a return for another request is an error.
 */
export function decisionFromRedirect(url: string | URL, pending: PendingGrant): Result<Decision> {
  const q = new URL(url).searchParams;
  if (q.get('grant_request_id') !== pending.grantRequestId) {
    return fail('state_mismatch', 'this return to the app is for another consent request');
  }
  const decision = q.get('decision');
  if (decision === 'approve' || decision === 'reject') return ok(decision);
  return fail('invalid_response', 'the return to the app carries no decision');
}
