import { DerivedView } from '../../model/derived-view.ts';
import { createDerivedView } from '../../operations/derived-views.ts';
import { DERIVED_VIEW_KINDS } from '../../resolve/derived-views/index.ts';
import { BODY_ERRORS, caller, READ_ERRORS, type Route } from './route.ts';

// POST /v1/derived-views/{kind}: one route per registered kind, generated from the registry
// (docs/derived-views.md), so a new kind gets its route and its OpenAPI entry by existing. The
// routes only translate; every rule lives in src/operations/derived-views.ts.

const ERRORS = [...READ_ERRORS, ...BODY_ERRORS];

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
      return createDerivedView(deps, caller(input), kind.kind, input.body);
    },
  }),
);
