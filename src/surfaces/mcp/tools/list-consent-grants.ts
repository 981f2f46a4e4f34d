import { z } from 'zod';
import { ConsentGrant } from '../../../model/consent-grant.ts';
import { listConsentGrants } from '../../../operations/grants.ts';
import { EMPTY_INPUT, type McpTool, READ_ONLY } from './contract.ts';

export const listConsentGrantsTool: McpTool = {
  name: 'ppx_list_consent_grants',
  title: 'Your consent grant',
  description:
    'Returns the consent grant you act under: its purposes, allowed domains, namespaces, keys and operations, writeback and cross-domain policy, expiry and status. Check it before asking for data or proposing updates, so you only ask for what it covers.',
  annotations: READ_ONLY,
  kind: 'read',
  input: EMPTY_INPUT,
  output: z.strictObject({ grants: z.array(ConsentGrant) }),
  run: (deps, caller) => listConsentGrants(deps, caller),
};
