import { z } from 'zod';
import { Claim } from '../../model/claim.ts';
import { EffectiveProfile, type GrantEcho } from '../../model/effective-profile.ts';
import { PPX_VERSION } from '../../model/vocabulary.ts';
import { type Caller, subjectIdFor } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';

/** One proposal as answered: what became of it (docs/writeback.md). */
export const ProposalOutcome = z.strictObject({
  proposal_id: z.string(),
  claim_id: z.string(),
  key: z.string(),
  status: z.enum(['pending', 'confirmed', 'rejected', 'applied']),
});
export type ProposalOutcome = z.infer<typeof ProposalOutcome>;

/** One decision of confirm_updates as answered. */
export const DecisionOutcome = z.strictObject({
  proposal_id: z.string().optional(),
  claim_id: z.string(),
  action: z.enum(['confirm', 'edit', 'reject']),
  status: z.enum(['confirmed', 'rejected']),
});
export type DecisionOutcome = z.infer<typeof DecisionOutcome>;

/**
 * The answer of propose_updates and confirm_updates: an effective-profile document
 * (effective-profile.schema.json) whose `claims` are the claims written by this request, plus
 * what became of each proposal or decision.
 */
export const WritebackResponse = EffectiveProfile.extend({
  claims: z.array(Claim),
  writeback: z.enum(['none', 'proposal_created']),
  proposals: z.array(ProposalOutcome).optional(),
  decisions: z.array(DecisionOutcome).optional(),
});
export type WritebackResponse = z.infer<typeof WritebackResponse>;

export function envelope(
  deps: Deps,
  caller: Caller,
  subjectId: string,
  now: Date,
  claims: Claim[],
  extra: {
    writeback: 'none' | 'proposal_created';
    grant?: GrantEcho | undefined;
    proposals?: ProposalOutcome[];
    decisions?: DecisionOutcome[];
  },
): WritebackResponse {
  return {
    ppx_version: PPX_VERSION,
    subject_id: subjectIdFor(deps, caller, subjectId),
    provider_id: deps.provider.providerId,
    generated_at: now.toISOString(),
    claims,
    applied_modifiers: [],
    writeback: extra.writeback,
    ...(extra.proposals !== undefined ? { proposals: extra.proposals } : {}),
    ...(extra.decisions !== undefined ? { decisions: extra.decisions } : {}),
    ...(extra.grant !== undefined ? { grant: extra.grant } : {}),
  };
}
