import { DerivedView } from '../../model/derived-view.ts';
import { createDerivedView } from '../../operations/derived-views.ts';
import { DERIVED_VIEW_KINDS } from '../../resolve/derived-views/index.ts';
import type { Route } from './routes.ts';

// POST /v1/derived-views/{kind}: one route per registered kind, generated from the registry
// (docs/derived-views.md), so a new kind gets its route and its OpenAPI entry by existing. The
// routes only translate; every rule lives in src/operations/derived-views.ts.

// Kept local rather than imported from routes.ts: routes.ts imports this module (see
// consent-routes.ts for the same cycle).
const ERRORS = [
  'invalid_token',
  'grant_expired',
  'grant_revoked',
  'rate_limited',
  'invalid_request',
  'insufficient_scope',
  'cross_domain_denied',
  'unknown_namespace',
  'not_found',
  'payload_too_large',
  'unsupported_media_type',
];

function operationId(kind: string): string {
  return `derive${kind.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}`;
}

export const DERIVED_VIEW_ROUTES: readonly Route[] = DERIVED_VIEW_KINDS.map(
  (kind): Route => ({
    method: 'POST',
    path: `/v1/derived-views/${kind.kind}`,
    operationId: operationId(kind.kind),
    summary: `Derived view "${kind.kind}": ${kind.summary}`,
    tag: 'derived-views',
    auth: 'bearer',
    body: kind.body,
    response: DerivedView,
    errors: ERRORS,
    run: (deps, input) => {
      if (!input.caller) throw new Error('route declared bearer auth but ran without a caller');
      return createDerivedView(deps, input.caller, kind.kind, input.body);
    },
  }),
);
