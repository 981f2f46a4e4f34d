import { type PpxFailure, statusOf } from '../../model/errors.ts';

/** The binding's error body (bindings/http.md "Error shape"). */
interface ErrorBody {
  error: string;
  error_description: string;
  grant_id?: string;
  details?: Record<string, unknown>;
}

function errorBody(failure: PpxFailure): ErrorBody {
  return {
    error: failure.code,
    error_description: failure.description,
    ...(failure.grantId !== undefined ? { grant_id: failure.grantId } : {}),
    ...(failure.details !== undefined ? { details: failure.details } : {}),
  };
}

// The base of error mapping every surface shares: the binding's error body (bindings/http.md),
// the JSON error response with its RFC 6750 challenge, and what an unexpected exception becomes.
// A surface with a wire form of its own (MCP tool results, JSON-RPC errors) maps failures in one
// function of its own, on top of these.

export interface ErrorResponseOptions {
  readonly headers?: Headers;
  /** False when the request carried no token: its 401 challenge then names no error. */
  readonly tokenPresented?: boolean;
  /** RFC 9728 §5.1: the protected resource metadata a 401's challenge names. */
  readonly resourceMetadata?: string;
}

/**
 * The one place a PPX failure becomes an HTTP response. Token failures carry the RFC 6750
 * `WWW-Authenticate` challenge (`error="invalid_token"` also for revoked and expired grants,
 * WIRE-NOTES §2.5) naming the resource's metadata; scope failures carry
 * `error="insufficient_scope"`.
 */
export function errorResponse(failure: PpxFailure, options: ErrorResponseOptions = {}): Response {
  const headers = options.headers ?? new Headers();
  const status = statusOf(failure.code);
  if (status === 401) {
    // RFC 6750 §3.1: a request that carried no token gets a bare challenge, without an error code.
    const error = options.tokenPresented === false ? undefined : 'invalid_token';
    const metadata =
      options.resourceMetadata !== undefined ? `, resource_metadata="${options.resourceMetadata}"` : '';
    headers.set('WWW-Authenticate', challenge(error, failure.description) + metadata);
  } else if (failure.code === 'insufficient_scope') {
    headers.set('WWW-Authenticate', challenge('insufficient_scope', failure.description));
  }
  // RFC 9110 §10.2.3: when a refusal that passes with time may be asked again.
  if (failure.retryAfterSeconds !== undefined) headers.set('Retry-After', String(failure.retryAfterSeconds));
  headers.set('Content-Type', 'application/json');
  headers.set('Cache-Control', 'no-store');
  return new Response(JSON.stringify(errorBody(failure)), { status, headers });
}

/** RFC 6750 §3 challenge (/mcp writes its own, with `resource_metadata` first: mcp/app.ts). */
function challenge(error: string | undefined, description: string): string {
  const parts = ['Bearer realm="ppx"'];
  if (error) parts.push(`error="${error}"`, `error_description="${description.replace(/["\\]/g, '')}"`);
  return parts.join(', ');
}

/** An unexpected exception: logged in full, answered without any of its content (STYLE §5). */
export function serverError(err: unknown, log: (msg: string) => void): Response {
  log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return errorResponse({
    code: 'server_error',
    description: 'the provider failed to handle this request; it has been logged',
  });
}
