import { DPOP_ALGS } from '../../auth/dpop.ts';
import { type PpxFailure, statusAtTokenEndpoint, statusOf } from '../../model/errors.ts';

// How every protected surface refuses (HTTP API, AG-UI, MCP, A2A): one closed table from a PPX
// failure to a status and an RFC 6750 §3 challenge, written by one builder, so the same refusal
// reads the same on every surface; only the resource's metadata URL (RFC 9728 §5.1) differs.
// Each surface wraps a refusal in its own error body (surfaces/shared/errors.ts for PPX JSON,
// mcp/errors.ts, a2a/app.ts).

/** A refusal as a value: what the answer's status line and `WWW-Authenticate` carry. */
export interface Refusal {
  readonly status: number;
  readonly failure: PpxFailure;
  /** The `WWW-Authenticate` header, when the refusal is about the credential or its scope. */
  readonly challenge?: string;
  /** RFC 9449 §8.1, §9: the `DPoP-Nonce` header, when the server asks proofs for a nonce. */
  readonly nonce?: string;
}

/**
 * How the refused request presented its token, when it concerns DPoP (RFC 9449 §7.1): with the
 * `DPoP` scheme, or a DPoP-bound token as `Bearer`. Its challenges use the `DPoP` scheme.
 */
export interface DpopContext {
  /** The nonce proofs must carry, when the server asks for one. */
  readonly nonce?: string | undefined;
}

/**
 * The one table (model/errors.ts gives the status): a 401 challenges with `invalid_token` (also
 * for revoked and expired grants, WIRE-NOTES §2.5), or bare when no token was presented (RFC
 * 6750 §3.1); `insufficient_scope` challenges for the step-up; anything else has no challenge.
 */
export function refusalOf(
  failure: PpxFailure,
  resourceMetadata: string | undefined,
  tokenPresented = true,
  /** Set when the request concerns DPoP: the challenge is then RFC 9449 §7.1's `DPoP` one. */
  dpop?: DpopContext,
): Refusal {
  const status = statusOf(failure.code);
  const nonce = dpop?.nonce !== undefined ? { nonce: dpop.nonce } : {};
  // RFC 9449 §7.1 and §9: a proof's own failures have their own error codes.
  const proofError =
    failure.code === 'invalid_dpop_proof' || failure.code === 'use_dpop_nonce' ? failure.code : undefined;
  let error: ChallengeError | undefined;
  if (status === 401) error = proofError ?? (tokenPresented ? 'invalid_token' : undefined);
  else if (failure.code === 'insufficient_scope') error = 'insufficient_scope';
  else return { status, failure, ...nonce };
  const scheme = dpop !== undefined || proofError !== undefined ? 'DPoP' : 'Bearer';
  return {
    status,
    failure,
    challenge: challengeOf(scheme, resourceMetadata, error, failure.description),
    ...nonce,
  };
}

/**
 * A refusal of a token endpoint served by a protected surface's pipeline (consent-v2's
 * `/v1/consent/token` and `/v1/consent/refresh`): no challenge, since the client authenticates in
 * the body (RFC 6749 §5.2), and a DPoP proof's failures are 400 there (RFC 9449 §5), as at the
 * OAuth token endpoint.
 */
export function tokenEndpointRefusal(failure: PpxFailure): Refusal {
  return { status: statusAtTokenEndpoint(failure.code), failure };
}

/**
 * RFC 6750 §3 with RFC 9728 §5.1's `resource_metadata`:
 * `Bearer realm="ppx", resource_metadata="…", error="…", error_description="…"`; the `DPoP`
 * scheme's (RFC 9449 §7.1) has the same parameters and `algs`, the proof algorithms accepted.
 */
type ChallengeError = 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';

function challengeOf(
  scheme: 'Bearer' | 'DPoP',
  resourceMetadata: string | undefined,
  error: ChallengeError | undefined,
  description: string,
): string {
  const parts = [`${scheme} realm="ppx"`];
  if (resourceMetadata !== undefined) parts.push(`resource_metadata="${resourceMetadata}"`);
  if (error !== undefined) parts.push(`error="${error}"`, `error_description="${quotable(description)}"`);
  if (scheme === 'DPoP') parts.push(`algs="${DPOP_ALGS.join(' ')}"`);
  return parts.join(', ');
}

/** RFC 6750 §3: an error_description holds %x20-21 / %x23-5B / %x5D-7E only. */
function quotable(description: string): string {
  return withoutTriggerWords(description).replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '');
}

/**
 * Some MCP clients start re-authorization when an error text says "401", "unauthorized" or
 * "forbidden" (WIRE-NOTES §5); texts a client may show a model avoid those words.
 */
export function withoutTriggerWords(text: string): string {
  return text
    .replace(/\b401\b/g, 'refused')
    .replace(/unauthori[sz]ed/gi, 'not allowed')
    .replace(/forbidden/gi, 'not allowed');
}

/**
 * A refusal as an HTTP answer with `body` (the surface's own error body): the challenge, the
 * `Retry-After` of a refusal that passes with time (RFC 9110 §10.2.3), and no cache may keep it.
 */
export function refusalResponse(
  refusal: Refusal,
  body: unknown,
  headers: Iterable<readonly [string, string]> = [],
): Response {
  const out = new Headers();
  for (const [name, value] of headers) out.set(name, value);
  if (refusal.challenge !== undefined) out.set('WWW-Authenticate', refusal.challenge);
  if (refusal.nonce !== undefined) out.set('DPoP-Nonce', refusal.nonce);
  const after = refusal.failure.retryAfterSeconds;
  if (after !== undefined) out.set('Retry-After', String(after));
  out.set('Content-Type', 'application/json');
  out.set('Cache-Control', 'no-store');
  return new Response(JSON.stringify(body), { status: refusal.status, headers: out });
}
