import { type PpxFailure, statusOf } from '../../model/errors.ts';

/** The binding's error body (bindings/http.md "Error shape"). */
export interface ErrorBody {
  error: string;
  error_description: string;
  grant_id?: string;
  details?: Record<string, unknown>;
}

export function errorBody(failure: PpxFailure): ErrorBody {
  return {
    error: failure.code,
    error_description: failure.description,
    ...(failure.grantId !== undefined ? { grant_id: failure.grantId } : {}),
    ...(failure.details !== undefined ? { details: failure.details } : {}),
  };
}

/**
 * The one place a PPX failure becomes an HTTP response. Token failures carry the RFC 6750
 * `WWW-Authenticate` challenge (`error="invalid_token"` also for revoked and expired grants,
 * WIRE-NOTES §2.5); scope failures carry `error="insufficient_scope"`.
 */
export function errorResponse(
  failure: PpxFailure,
  options: { headers?: Headers; tokenPresented?: boolean } = {},
): Response {
  const headers = options.headers ?? new Headers();
  const status = statusOf(failure.code);
  if (status === 401) {
    // RFC 6750 §3.1: a request that carried no token gets a bare challenge, without an error code.
    headers.set(
      'WWW-Authenticate',
      challenge(options.tokenPresented === false ? undefined : 'invalid_token', failure.description),
    );
  } else if (failure.code === 'insufficient_scope') {
    headers.set('WWW-Authenticate', challenge('insufficient_scope', failure.description));
  }
  headers.set('Content-Type', 'application/json');
  headers.set('Cache-Control', 'no-store');
  return new Response(JSON.stringify(errorBody(failure)), { status, headers });
}

/**
 * RFC 6750 §3 challenge. The RFC 9728 §5.1 `resource_metadata` parameter is added to every 401
 * on the way out (oauth/mount.ts), and /mcp writes its own challenges (mcp/app.ts).
 */
export function challenge(error: string | undefined, description: string): string {
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
