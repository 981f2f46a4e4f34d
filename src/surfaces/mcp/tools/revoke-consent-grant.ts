import { z } from 'zod';
import { ConsentGrant } from '../../../model/consent-grant.ts';
import { revokeOwnGrant } from '../../../operations/grants.ts';
import { EMPTY_INPUT, type McpTool } from './contract.ts';

export const revokeConsentGrantTool: McpTool = {
  name: 'ppx_revoke_consent_grant',
  title: 'Give up this grant',
  description:
    'Ends the consent grant you act under, at once and for good: every token bound to it stops working, and only the owner can grant access again. Call it only when the user asks you to disconnect or stop using their profile.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  kind: 'write',
  input: EMPTY_INPUT,
  output: z.strictObject({ grant: ConsentGrant }),
  run: (deps, caller) => revokeOwnGrant(deps, caller),
};
