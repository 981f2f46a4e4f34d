import { ProfileSummary } from '../../../model/summary.ts';
import { getProfileSummary } from '../../../operations/profile-reads.ts';
import { EMPTY_INPUT, type McpTool, READ_ONLY } from './contract.ts';

export const getProfileSummaryTool: McpTool = {
  name: 'ppx_get_profile_summary',
  title: 'Profile summary',
  description:
    'Lists which preference claims this grant lets you see, without their values: namespace, key, type, provenance and a confidence band per claim, plus claim counts per namespace. Call it first to learn what exists, then read values with ppx_get_effective_profile or ppx_query_claims.',
  annotations: READ_ONLY,
  kind: 'read',
  input: EMPTY_INPUT,
  output: ProfileSummary,
  run: (deps, caller) => getProfileSummary(deps, caller),
};
