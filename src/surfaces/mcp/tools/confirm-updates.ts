import { ConfirmInput, confirmUpdates } from '../../../operations/writeback/confirm.ts';
import { WritebackResponse } from '../../../operations/writeback/envelope.ts';
import type { McpTool } from './contract.ts';

export const confirmUpdatesTool: McpTool = {
  name: 'ppx_confirm_updates',
  title: 'Confirm pending updates',
  description:
    'Confirms, edits or rejects pending proposals of this profile, or confirms a stored claim, when the grant allows confirm_update and the user has explicitly agreed in this conversation. Each proposal is decided once; a second decision is a conflict.',
  // Destructive: an `edit` decision replaces a claim's value, a `reject` drops a proposal.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  kind: 'write',
  input: ConfirmInput,
  output: WritebackResponse,
  run: (deps, caller, input) => confirmUpdates(deps, caller, input as ConfirmInput),
};
