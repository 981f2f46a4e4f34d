import {
  CATALOG,
  type CatalogOperation,
  type HttpBinding,
  operationIdOf,
} from '../../operations/catalog/index.ts';

// The HTTP surface's routes, generated from the operation catalog: every operation with an HTTP
// binding is one route, and nothing else is. The pipeline (app.ts) and the OpenAPI document
// (openapi.ts) both read this list, so they cannot drift apart.

export interface Route {
  readonly operation: CatalogOperation;
  readonly http: HttpBinding;
  readonly operationId: string;
  /** `bearer`: a subject or grant token is required. */
  readonly auth: 'none' | 'bearer';
  /** Every error code the route may answer with: auth, the operation's own, reading the body. */
  readonly errors: readonly string[];
}

/** The failures of bearer authentication, any route with `auth: 'bearer'` may answer them. */
const AUTH_ERRORS = ['invalid_token', 'grant_expired', 'grant_revoked'];
/** The failures of reading a body, any route that takes one may answer them. */
const BODY_ERRORS = ['payload_too_large', 'unsupported_media_type'];
/** The failures of a DPoP proof, any token endpoint route (`http.dpop`) may answer them. */
const DPOP_ERRORS = ['invalid_dpop_proof', 'use_dpop_nonce'];

function routeOf(operation: CatalogOperation, http: HttpBinding): Route {
  const auth = operation.caller === 'public' ? 'none' : 'bearer';
  return {
    operation,
    http,
    operationId: operationIdOf(operation.name),
    auth,
    errors: [
      ...(auth === 'bearer' ? AUTH_ERRORS : []),
      ...operation.errors,
      ...(http.input === 'body' ? BODY_ERRORS : []),
      ...(http.dpop !== undefined ? DPOP_ERRORS : []),
      // Every route counts against the caller's budget (operations/provider/rate-limits.ts).
      'rate_limited',
    ],
  };
}

export const ROUTES: readonly Route[] = CATALOG.flatMap((op) => (op.http ? [routeOf(op, op.http)] : []));
