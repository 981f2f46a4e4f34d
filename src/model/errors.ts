// PPX errors are values: a closed union of wire codes, each with exactly one HTTP status.
// Surfaces map a PpxFailure to their own wire form in one function each; an unexpected
// exception never reaches a peer (it becomes a generic `server_error`).

/** Every wire code the provider emits, with its HTTP status (bindings/http.md, WIRE-NOTES §2). */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_token: 401,
  grant_expired: 401,
  grant_revoked: 401,
  insufficient_scope: 403,
  cross_domain_denied: 403,
  writeback_forbidden: 403,
  writeback_pending: 202,
  unknown_namespace: 400,
  unknown_extension: 404,
  not_found: 404,
  unknown_client: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  server_error: 500,
  // OAuth 2.1 / RFC 6749 §5.2 and RFC 7591 §3.2.2 codes, used by the consent flow and the
  // authorization server.
  invalid_grant: 400,
  invalid_client: 401,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  /**
   * RFC 9449 §7.1 and §9: a DPoP proof missing, malformed or not for this request, and a proof
   * without the nonce the server asks for. 401 at a protected resource; the token endpoints
   * answer them with 400 (RFC 9449 §5, §8: surfaces/oauth/form.ts).
   */
  invalid_dpop_proof: 401,
  use_dpop_nonce: 401,
  /** A refresh under a grant the subject revoked: it will never work again (WIRE-NOTES §2.4). */
  grant_gone: 410,
} as const satisfies Record<string, number>;

export type PpxErrorCode = keyof typeof ERROR_STATUS;

/** A failure meant for the wire: code, a description a person can act on, optional details. */
export interface PpxFailure {
  readonly code: PpxErrorCode;
  readonly description: string;
  readonly grantId?: string;
  readonly details?: Record<string, unknown>;
  /** For a refusal that passes with time (a 429): seconds until asking again can succeed. */
  readonly retryAfterSeconds?: number;
}

export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: PpxFailure };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(
  code: PpxErrorCode,
  description: string,
  extra: { grantId?: string; details?: Record<string, unknown>; retryAfterSeconds?: number } = {},
): { readonly ok: false; readonly error: PpxFailure } {
  return { ok: false, error: { code, description, ...extra } };
}

export function statusOf(code: PpxErrorCode): number {
  return ERROR_STATUS[code];
}

/**
 * The status of a failure answered by a token endpoint (OAuth's and consent-v2's): RFC 9449 §5
 * and §8 answer a bad or nonce-less DPoP proof there with 400 (RFC 6749 §5.2), where a protected
 * resource answers 401 (§7.1, §9).
 */
export function statusAtTokenEndpoint(code: PpxErrorCode): number {
  return code === 'invalid_dpop_proof' || code === 'use_dpop_nonce' ? 400 : ERROR_STATUS[code];
}
