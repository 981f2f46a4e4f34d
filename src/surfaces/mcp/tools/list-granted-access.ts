import { GrantedAccessList, listGrantedAccess } from '../../../operations/granted-access.ts';
import { type DiscoveryTool, EMPTY_INPUT, READ_ONLY } from './contract.ts';

export const listGrantedAccessTool: DiscoveryTool = {
  name: 'ppx_list_granted_access',
  title: 'Granted access',
  description:
    'Lists every grant your token covers, as it stands now: grant_id, source, purposes, processing permissions (allowed operations), namespaces with the profile handles (instance_ids) they cover, access mode and status. Takes no grant_id. Call it first, then pass one of the active grant_ids to the other tools; an ended grant stays ended.',
  annotations: READ_ONLY,
  kind: 'discovery',
  input: EMPTY_INPUT,
  output: GrantedAccessList,
  run: (deps, mcp) => listGrantedAccess(deps, mcp),
};
