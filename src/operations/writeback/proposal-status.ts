import { fail, ok, type Result } from '../../model/errors.ts';
import type { ProposalRecord, ProposalStatus } from '../../model/proposal.ts';
import type { GrantCaller } from '../callers/token-caller.ts';
import type { Deps } from '../deps.ts';

// What became of a proposal a grantee made (issue 25 item 2: "told when a proposal it made is
// decided"): the MCP resource `ppx://proposal/{proposal_id}` reads it, and a grantee may follow
// it. Only the proposals made under the caller's own grant are there; any other id, another
// grant's proposal included, is absent alike. It says only what the grantee was told when it
// proposed, plus the decision: no value, no claim id, nothing the grant could not read. It is
// not audited: it is the grantee's own request, and its outcome, not the person's data.

export interface ProposalStatusView {
  readonly proposal_id: string;
  readonly namespace: string;
  readonly key: string;
  readonly status: ProposalStatus;
  readonly created_at: string;
  readonly decided_at?: string;
}

/** The caller's own proposal, or not_found for any id that is not one. */
export async function ownProposal(
  deps: Pick<Deps, 'store'>,
  caller: GrantCaller,
  proposalId: string,
): Promise<Result<ProposalStatusView>> {
  const proposal = await deps.store.getProposal(proposalId);
  if (proposal === undefined || proposal.grant_id !== caller.grant.grant_id) {
    return fail('not_found', 'there is no such proposal');
  }
  return ok(statusView(proposal));
}

function statusView(p: ProposalRecord): ProposalStatusView {
  return {
    proposal_id: p.proposal_id,
    namespace: p.claim.namespace,
    key: p.claim.key,
    status: p.status,
    created_at: p.created_at,
    ...(p.decided_at !== undefined ? { decided_at: p.decided_at } : {}),
  };
}
