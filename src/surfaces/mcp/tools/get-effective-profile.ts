import { EffectiveProfile } from '../../../model/effective-profile.ts';
import { EffectiveInput, getEffectiveProfile } from '../../../operations/profile-reads.ts';
import { type McpTool, READ_ONLY } from './contract.ts';

export const getEffectiveProfileTool: McpTool = {
  name: 'ppx_get_effective_profile',
  title: 'Effective profile',
  description:
    'Returns every claim this grant lets you see, with the context modifiers that match the given context applied (for example {"occasion": "evening", "season": "winter"}). Use it to personalize for the current situation; optionally narrow with requested_namespaces, requested_keys or requested_domain, and state your purpose.',
  annotations: READ_ONLY,
  kind: 'read',
  input: EffectiveInput,
  output: EffectiveProfile,
  run: (deps, caller, input) => getEffectiveProfile(deps, caller, input as EffectiveInput),
};
