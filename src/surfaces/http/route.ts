import type { z } from 'zod';
import type { PpxFailure, Result } from '../../model/errors.ts';
import type { Caller } from '../../operations/caller.ts';
import type { Deps } from '../../operations/deps.ts';

// What a route of the HTTP surface is, and what every route file shares. A leaf module: routes.ts
// gathers the route files, and they all import from here, so nothing is read across an import
// cycle while modules load.

export interface RouteInput {
  readonly caller: Caller | undefined;
  readonly body: unknown;
  readonly query: unknown;
  /** Path parameters (`:name` segments), parsed with the route's `params` schema. */
  readonly params?: unknown;
}

export interface Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: 'discovery' | 'profile' | 'consent' | 'audit' | 'extensions' | 'export' | 'derived-views';
  /** `bearer`: a subject or grant token is required. */
  readonly auth: 'none' | 'bearer';
  readonly body?: z.ZodType;
  readonly query?: z.ZodType;
  /** Schema of the path parameters, for paths with `:name` segments. */
  readonly params?: z.ZodType;
  readonly response: z.ZodType;
  /** Error codes this route may answer with, for the OpenAPI document. */
  readonly errors: readonly string[];
  /** The status of a success (default 200), e.g. 201 when the route creates something. */
  readonly successStatus?: number;
  /** When it says so, a success is 202 Accepted instead (propose-updates that queued a proposal). */
  readonly acceptedWhen?: (value: unknown) => boolean;
  /**
   * `Cache-Control: no-store` on every answer, for routes without bearer auth that hand out
   * tokens or other secrets (bearer routes always get it: their answers are personal data).
   */
  readonly noStore?: true;
  /**
   * The one failure this route answers whenever the body cannot be read or fails its schema, and
   * in place of any failure the operation returns with the same code: the caller never learns
   * which check or which field failed (WIRE-NOTES §2.3). A body too large or not JSON at all is
   * still answered as such (413, 415): that says nothing about the grant.
   */
  readonly uniformFailure?: PpxFailure;
  run(deps: Deps, input: RouteInput): Promise<Result<unknown>>;
}

/** The failures of bearer authentication, any route with `auth: 'bearer'` may answer them. */
export const AUTH_ERRORS = ['invalid_token', 'grant_expired', 'grant_revoked', 'rate_limited'];
/** The failures of a read under a grant: authentication, then the grant's scope. */
export const READ_ERRORS = [
  ...AUTH_ERRORS,
  'invalid_request',
  'insufficient_scope',
  'cross_domain_denied',
  'unknown_namespace',
  'not_found',
];

/** The failures of reading a body, any route with a `body` may answer them. */
export const BODY_ERRORS = ['payload_too_large', 'unsupported_media_type'];

/** The bearer caller of an authenticated route (the pipeline guarantees it is there). */
export function caller(input: RouteInput): Caller {
  if (!input.caller) throw new Error('route declared bearer auth but ran without a caller');
  return input.caller;
}
