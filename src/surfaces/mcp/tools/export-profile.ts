import { Profile } from '../../../model/profile.ts';
import { exportProfile } from '../../../operations/export-profile.ts';
import { EMPTY_INPUT, type McpTool, READ_ONLY } from './contract.ts';

export const exportProfileTool: McpTool = {
  name: 'ppx_export_profile',
  title: 'Export profile',
  description:
    'Returns the part of the profile this grant covers as a complete PPX profile document (claims, context modifiers, the grant itself), under ids that are specific to your app. Needs a grant with the export operation; one-time grants never allow it.',
  annotations: READ_ONLY,
  kind: 'read',
  input: EMPTY_INPUT,
  output: Profile,
  run: (deps, caller) => exportProfile(deps, caller),
};
