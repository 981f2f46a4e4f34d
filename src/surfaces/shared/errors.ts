import type { PpxFailure } from '../../model/errors.ts';
import { type Refusal, refusalOf, refusalResponse } from './challenge.ts';

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
// and what an unexpected exception becomes. The status and the RFC 6750 challenge of a failure
// come from the one table every surface uses (challenge.ts); this file gives them the PPX body.

export interface ErrorResponseOptions {
  readonly headers?: Iterable<readonly [string, string]>;
  /** False when the request carried no token: its 401 challenge then names no error. */
  readonly tokenPresented?: boolean;
  /** RFC 9728 §5.1: the protected resource metadata a challenge names. */
  readonly resourceMetadata?: string;
}

/** The one place a PPX failure becomes an HTTP response with the binding's body. */
export function errorResponse(failure: PpxFailure, options: ErrorResponseOptions = {}): Response {
  const refusal = refusalOf(failure, options.resourceMetadata, options.tokenPresented ?? true);
  return ppxRefusal(refusal, options.headers);
}

/** A refusal (the front door's, or one built from a failure) with the binding's error body. */
export function ppxRefusal(refusal: Refusal, headers?: Iterable<readonly [string, string]>): Response {
  return refusalResponse(refusal, errorBody(refusal.failure), headers);
}

/** An unexpected exception: logged in full, answered without any of its content (STYLE §5). */
export function serverError(err: unknown, log: (msg: string) => void): Response {
  log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return errorResponse({
    code: 'server_error',
    description: 'the provider failed to handle this request; it has been logged',
  });
}
