import { z } from 'zod';
import { ConsentGrant } from '../../model/consent-grant.ts';
import { listConsentGrants, RevokeInput, revokeConsentGrant } from '../grants/consent-grants.ts';
import { GrantUsageList, listGrantUsage } from '../grants/grant-usage.ts';
import { GrantedAccessList, listGrantedAccess } from '../grants/list-granted-access.ts';
import { defineOperation, READ_ONLY } from './contract.ts';
import { EMPTY_INPUT } from './shared.ts';

// Grants as their holders and their subjects see them (SPEC §9 list/revoke), and child discovery
// for a token that covers several grants (PDPP MCP read profile §3).

const GrantList = z.strictObject({ grants: z.array(ConsentGrant) });

export const listGrantedAccessOperation = defineOperation({
  name: 'list_granted_access',
  title: 'Granted access',
  summary: 'Every grant the presented token covers, as it stands now',
  description:
    'Every grant your token covers, as it stands now: grant_id, purposes, operations, namespaces, status. Call it first; pass an active grant_id to the other tools.',
  caller: 'token',
  audit: [],
  input: EMPTY_INPUT,
  output: GrantedAccessList,
  errors: [],
  run: (deps, token) => listGrantedAccess(deps, token),
  mcp: { annotations: READ_ONLY, shows: ['grants'] },
});

export const listConsentGrantsOperation = defineOperation({
  name: 'list_consent_grants',
  title: 'Your consent grant',
  summary: "The subject's grants (subject token) or the caller's own grant (grant token)",
  description:
    'The consent grant you act under: purposes, domains, namespaces, keys, operations, policies, expiry, status. Check it so you only ask for what it covers.',
  caller: 'caller',
  // A grantee reads its own grant whatever it allows; listing it is audited, the subject's is not.
  audit: ['list_grants'],
  input: EMPTY_INPUT,
  output: GrantList,
  follows: { object: 'consent-grant', at: 'grants' },
  errors: [],
  run: (deps, caller) => listConsentGrants(deps, caller),
  agui: { writes: false },
  http: { method: 'GET', path: '/v1/consent/grants', tag: 'consent', input: 'none' },
  mcp: { annotations: READ_ONLY, grantIds: 'read', shows: ['grants'] },
});

export const revokeConsentGrantOperation = defineOperation({
  name: 'revoke_consent_grant',
  title: 'Give up this grant',
  summary: 'Revoke a grant; every token bound to it fails on its next request',
  description:
    'Ends the grant you act under, at once and for good. Call it only when the user asks you to disconnect.',
  caller: 'caller',
  audit: ['revoke'],
  input: RevokeInput,
  output: z.strictObject({ grant: ConsentGrant }),
  follows: { object: 'consent-grant', at: 'grant' },
  errors: ['invalid_request', 'not_found'],
  run: (deps, caller, input) => revokeConsentGrant(deps, caller, input),
  agui: { writes: true },
  http: { method: 'POST', path: '/v1/consent/revoke', tag: 'consent', input: 'body' },
  mcp: {
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    grantIds: 'write',
    grantIdIsTheCallsGrant: true,
    shows: ['grant'],
  },
});

export const listGrantUsageOperation = defineOperation({
  name: 'list_grant_usage',
  title: 'When apps last used their access',
  summary: "For each of the subject's active grants, when its app last used it",
  description:
    "For each of the person's active grants: when its app last read or wrote under it (the newest allowed event of that app under that grant in the audit log), or null. Subject tokens only.",
  caller: 'caller',
  // Reading when access was used is reading the log, which is not itself logged.
  audit: [],
  input: EMPTY_INPUT,
  output: GrantUsageList,
  errors: ['access_denied'],
  run: (deps, caller) => listGrantUsage(deps, caller),
  agui: { writes: false },
  http: { method: 'GET', path: '/v1/consent/grants/usage', tag: 'consent', input: 'none' },
});
