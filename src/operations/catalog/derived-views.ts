import { DerivedView } from '../../model/derived-view.ts';
import { DERIVED_VIEW_KINDS, type DerivedViewKind } from '../../resolve/derived-views/index.ts';
import { createDerivedView } from '../reads/derived-views.ts';
import { type A2aBinding, type CatalogOperation, defineOperation } from './contract.ts';
import { READ_ERRORS } from './shared.ts';

// One operation per registered derived-view kind (docs/derived-views.md), generated from the
// registry, so a new kind gets its route, OpenAPI entry (and A2A skill, where it has one) by
// existing. Every rule lives in operations/reads/derived-views.ts.

/** The kinds the A2A binding names as skills of its own (bindings/a2a.md, WIRE-NOTES §6). */
const A2A_SKILLS: Readonly<Record<string, A2aBinding>> = {
  compatibility: {
    skill: 'compatibility_view',
    tags: ['ppx', 'derived-view', 'matching'],
    examples: ['How compatible are these two people, without showing either one’s preferences?'],
  },
  recommendation_basis: {
    skill: 'recommendation_basis',
    tags: ['ppx', 'derived-view', 'explanation'],
    examples: ['Which of this person’s preferences would a recommendation for a summer scent rest on?'],
  },
};

function viewOperation(kind: DerivedViewKind): CatalogOperation {
  const a2a = A2A_SKILLS[kind.kind];
  return defineOperation({
    name: `derive_${kind.kind}`,
    title: `Derived view: ${kind.kind.replaceAll('_', ' ')}`,
    summary: `Derived view "${kind.kind}": ${kind.summary}`,
    description: `${kind.summary} Returns signals, basis keys and explanations, never a claim value.`,
    caller: 'caller',
    // A view is less than a full read: `query`, or a `read` grant (operations/reads/derived-views.ts).
    grant: { operation: 'query', alsoPermittedBy: ['read'], purposes: kind.purposes },
    audit: ['derived_view'],
    input: kind.body,
    output: DerivedView,
    follows: { object: 'derived-view' },
    errors: READ_ERRORS,
    run: (deps, caller, input) => createDerivedView(deps, caller, kind.kind, input),
    http: { method: 'POST', path: `/v1/derived-views/${kind.kind}`, tag: 'derived-views', input: 'body' },
    ...(a2a ? { a2a } : {}),
  });
}

export const DERIVED_VIEW_OPERATIONS: readonly CatalogOperation[] = DERIVED_VIEW_KINDS.map(viewOperation);
