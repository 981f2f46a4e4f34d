import { EffectiveProfile } from '../../model/effective-profile.ts';
import { Profile } from '../../model/profile.ts';
import { ProfileSummary } from '../../model/summary.ts';
import { exportProfile } from '../export-profile.ts';
import {
  EffectiveInput,
  getEffectiveProfile,
  getProfileSummary,
  QueryInput,
  queryClaims,
} from '../profile-reads.ts';
import { defineOperation, READ_ONLY } from './contract.ts';
import { EMPTY_INPUT, READ_ERRORS } from './shared.ts';

// The reads of SPEC §9: what a grant lets its holder see of the profile, redacted or with values,
// resolved under a context, or as a whole PPX document.

export const getProfileSummaryOperation = defineOperation({
  name: 'get_profile_summary',
  title: 'Profile summary',
  summary:
    'Redacted summary of the claims visible to the caller: keys, provenance, confidence band, no values',
  description:
    'Lists which preference claims this grant lets you see, without their values: namespace, key, type, provenance and a confidence band per claim, plus claim counts per namespace. Call it first to learn what exists, then read values with ppx_get_effective_profile or ppx_query_claims.',
  caller: 'caller',
  grant: { operation: 'read' },
  audit: ['summary'],
  input: EMPTY_INPUT,
  output: ProfileSummary,
  errors: READ_ERRORS,
  run: (deps, caller) => getProfileSummary(deps, caller),
  http: { method: 'GET', path: '/v1/profile/summary', tag: 'profile', input: 'none' },
  mcp: { annotations: READ_ONLY, grantIds: 'read' },
});

export const queryClaimsOperation = defineOperation({
  name: 'query_claims',
  title: 'Query claims',
  summary: 'Query visible claims by namespace, key, domain, provenance or confidence',
  description:
    'Returns the claims (with values) that match filters: requested_namespaces, requested_keys ("namespace.key"), requested_domain, provenance kinds and min_confidence (0–1), resolved under an optional context such as {"occasion": "work"}. Filters only narrow what the grant allows; asking for a namespace or key outside the grant is refused.',
  caller: 'caller',
  grant: { operation: 'query', alsoPermittedBy: ['read'] },
  audit: ['query'],
  input: QueryInput,
  output: EffectiveProfile,
  errors: READ_ERRORS,
  run: (deps, caller, input) => queryClaims(deps, caller, input),
  http: { method: 'POST', path: '/v1/profile/query', tag: 'profile', input: 'body' },
  mcp: { annotations: READ_ONLY, grantIds: 'read' },
  a2a: {
    skill: 'scoped_query',
    tags: ['ppx', 'profile', 'query'],
    examples: ['Which fragrance families does this person like, stated by them, with confidence above 0.7?'],
  },
});

export const getEffectiveProfileOperation = defineOperation({
  name: 'get_effective_profile',
  title: 'Effective profile',
  summary: 'Visible claims with the context modifiers that match the supplied context applied',
  description:
    'Returns every claim this grant lets you see, with the context modifiers that match the given context applied (for example {"occasion": "evening", "season": "winter"}). Use it to personalize for the current situation; optionally narrow with requested_namespaces, requested_keys or requested_domain, and state your purpose.',
  caller: 'caller',
  grant: { operation: 'read' },
  audit: ['effective'],
  input: EffectiveInput,
  output: EffectiveProfile,
  errors: READ_ERRORS,
  run: (deps, caller, input) => getEffectiveProfile(deps, caller, input),
  http: { method: 'POST', path: '/v1/profile/effective', tag: 'profile', input: 'body' },
  mcp: { annotations: READ_ONLY, grantIds: 'read' },
  a2a: {
    skill: 'get_effective_profile',
    tags: ['ppx', 'profile', 'preference'],
    examples: ['What does this person prefer for a date night in hot, humid weather?'],
  },
});

export const exportProfileOperation = defineOperation({
  name: 'export_profile',
  title: 'Export profile',
  summary: "The profile in PPX format: all of it for the subject, the grant's scope for an export grant",
  description:
    'Returns the part of the profile this grant covers as a complete PPX profile document (claims, context modifiers, the grant itself), under ids that are specific to your app. Needs a grant with the export operation; one-time grants never allow it.',
  caller: 'caller',
  grant: { operation: 'export' },
  audit: ['export'],
  input: EMPTY_INPUT,
  output: Profile,
  errors: ['insufficient_scope', 'not_found', 'invalid_request'],
  run: (deps, caller) => exportProfile(deps, caller),
  http: { method: 'POST', path: '/v1/export', tag: 'export', input: 'body' },
  mcp: { annotations: READ_ONLY, grantIds: 'read' },
});
