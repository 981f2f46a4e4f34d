import { EffectiveProfile } from '../../../model/effective-profile.ts';
import { QueryInput, queryClaims } from '../../../operations/profile-reads.ts';
import { type McpTool, READ_ONLY } from './contract.ts';

export const queryClaimsTool: McpTool = {
  name: 'ppx_query_claims',
  title: 'Query claims',
  description:
    'Returns the claims (with values) that match filters: requested_namespaces, requested_keys ("namespace.key"), requested_domain, provenance kinds and min_confidence (0–1), resolved under an optional context such as {"occasion": "work"}. Filters only narrow what the grant allows; asking for a namespace or key outside the grant is refused.',
  annotations: READ_ONLY,
  kind: 'read',
  input: QueryInput,
  output: EffectiveProfile,
  run: (deps, caller, input) => queryClaims(deps, caller, input as QueryInput),
};
