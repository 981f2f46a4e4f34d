import { EffectiveProfile } from '../../model/effective-profile.ts';
import { Profile } from '../../model/profile.ts';
import { ProfileSummary } from '../../model/summary.ts';
import { exportProfile } from '../export-import/export-profile.ts';
import {
  EffectiveInput,
  getEffectiveProfile,
  getProfileSummary,
  QueryInput,
  queryClaims,
} from '../reads/effective-query-summary.ts';
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
    'Which claims this grant lets you see, without values: key, provenance, confidence band. Call it first, then read values with ppx_get_effective_profile.',
  caller: 'caller',
  grant: { operation: 'read' },
  audit: ['summary'],
  input: EMPTY_INPUT,
  output: ProfileSummary,
  errors: READ_ERRORS,
  run: (deps, caller) => getProfileSummary(deps, caller),
  http: { method: 'GET', path: '/v1/profile/summary', tag: 'profile', input: 'none' },
  mcp: { annotations: READ_ONLY, grantIds: 'read', shows: ['namespaces', 'claims'] },
});

export const queryClaimsOperation = defineOperation({
  name: 'query_claims',
  title: 'Query claims',
  summary: 'Query visible claims by namespace, key, domain, provenance or confidence',
  description:
    'The claims, with values, matching filters (namespaces, "namespace.key" keys, domain, provenance, min_confidence 0–1), under an optional context.',
  caller: 'caller',
  grant: { operation: 'query', alsoPermittedBy: ['read'] },
  audit: ['query'],
  input: QueryInput,
  output: EffectiveProfile,
  follows: { object: 'effective-profile' },
  errors: READ_ERRORS,
  run: (deps, caller, input) => queryClaims(deps, caller, input),
  http: { method: 'POST', path: '/v1/profile/query', tag: 'profile', input: 'body' },
  mcp: { annotations: READ_ONLY, grantIds: 'read', shows: ['claims', 'applied_modifiers'] },
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
    'Every claim this grant lets you see, adjusted for a context such as {"occasion": "evening"}. Use it to personalize for the situation at hand.',
  caller: 'caller',
  grant: { operation: 'read' },
  audit: ['effective'],
  input: EffectiveInput,
  output: EffectiveProfile,
  follows: { object: 'effective-profile' },
  errors: READ_ERRORS,
  run: (deps, caller, input) => getEffectiveProfile(deps, caller, input),
  http: { method: 'POST', path: '/v1/profile/effective', tag: 'profile', input: 'body' },
  mcp: { annotations: READ_ONLY, grantIds: 'read', shows: ['claims', 'applied_modifiers'] },
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
    'The part of the profile this grant covers as a PPX profile document (claims, context modifiers, the grant). Needs the export operation.',
  caller: 'caller',
  grant: { operation: 'export' },
  audit: ['export'],
  input: EMPTY_INPUT,
  output: Profile,
  follows: { object: 'profile' },
  errors: ['insufficient_scope', 'not_found', 'invalid_request'],
  run: (deps, caller) => exportProfile(deps, caller),
  agui: { writes: false },
  http: { method: 'POST', path: '/v1/export', tag: 'export', input: 'body' },
  mcp: { annotations: READ_ONLY, grantIds: 'read', shows: ['claims'] },
});
