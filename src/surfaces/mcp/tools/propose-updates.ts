import { WritebackResponse } from '../../../operations/writeback/envelope.ts';
import { ProposeInput, proposeUpdates } from '../../../operations/writeback/propose.ts';
import type { McpTool } from './contract.ts';

export const proposeUpdatesTool: McpTool = {
  name: 'ppx_propose_updates',
  title: 'Propose profile updates',
  description:
    'Proposes new or changed preference claims (each a PPX claim: namespace, key, type, value, confidence, source). The grant\'s writeback policy decides: applied at once (writeback "applied"), queued for the owner to review (writeback "proposal_created": do not resend, the owner will decide), or refused. Only propose what the user actually said or clearly implied.',
  // Destructive: under `allow` (or a low-risk proposal under `auto_for_low_risk`) a proposal
  // replaces the value of an existing claim, which is not an additive update (MCP annotations).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  kind: 'write',
  input: ProposeInput,
  output: WritebackResponse,
  run: (deps, caller, input) => proposeUpdates(deps, caller, input as ProposeInput),
};
