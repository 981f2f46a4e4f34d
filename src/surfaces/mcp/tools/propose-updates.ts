import { WritebackResponse } from '../../../operations/writeback/envelope.ts';
import { ProposeInput, proposeUpdates } from '../../../operations/writeback/propose.ts';
import type { McpTool } from './contract.ts';

export const proposeUpdatesTool: McpTool = {
  name: 'ppx_propose_updates',
  title: 'Propose profile updates',
  description:
    'Proposes new or changed preference claims (each a PPX claim: namespace, key, type, value, confidence, source). The grant\'s writeback policy decides: applied at once (writeback "applied"), queued for the owner to review (writeback "proposal_created": do not resend, the owner will decide), or refused. Only propose what the user actually said or clearly implied.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  kind: 'write',
  input: ProposeInput,
  output: WritebackResponse,
  run: (deps, caller, input) => proposeUpdates(deps, caller, input as ProposeInput),
};
