import { z } from 'zod';
import { type Claim, qualifiedKey } from '../../model/claim.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { newId } from '../../model/ids.ts';
import type { ProfileRecord } from '../../model/profile-record.ts';
import type { ProposalRecord } from '../../model/proposal.ts';
import type { Scope } from '../../policy/scope.ts';
import { isClaimVisible } from '../../policy/visibility.ts';
import { granteeClaim, grantMayConfirm } from '../../policy/writeback.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import { actorOf, type Caller } from '../callers/caller.ts';
import { announceClaims, announceProposalsDecided } from '../changes.ts';
import type { AnyDeps, Deps, TxDeps } from '../deps.ts';
import { evaluateOrDeny } from '../grants/access-check.ts';
import { grantEcho } from '../grants/published-grant.ts';
import { inTransaction } from '../transaction.ts';
import { confirmedClaim, Refusal, writeClaims } from './apply.ts';
import { type DecisionOutcome, envelope, type WritebackResponse } from './envelope.ts';
import { checkOne } from './validate.ts';

const Id = z.string().min(1).max(300);

const ConfirmDecision = z.union([
  z.strictObject({ proposal_id: Id, action: z.enum(['confirm', 'reject']) }),
  z.strictObject({ proposal_id: Id, action: z.literal('edit'), claim: z.record(z.string(), z.unknown()) }),
  /** Confirms a stored claim as it is (no proposal): sets lifecycle.last_confirmed_at. */
  z.strictObject({ claim_id: Id, action: z.literal('confirm') }),
]);
type ConfirmDecision = z.infer<typeof ConfirmDecision>;

export const ConfirmInput = z.strictObject({ decisions: z.array(ConfirmDecision).min(1).max(50) });
export type ConfirmInput = z.infer<typeof ConfirmInput>;

/**
 * confirm_updates (SPEC §9): the subject — or a grant with `confirm_update`, for proposals of its
 * own profile inside its scope — confirms, edits or rejects pending proposals, or confirms a
 * stored claim. All decisions of a call commit together or not at all; each proposal is decided
 * once (compare-and-set), a second decision is 409 conflict.
 */
export async function confirmUpdates(
  deps: Deps,
  caller: Caller,
  input: ConfirmInput,
): Promise<Result<WritebackResponse>> {
  const now = deps.clock();
  let scope: Scope | undefined;
  let profile: ProfileRecord | undefined;
  if (caller.kind === 'grant') {
    const evaluated = await evaluateOrDeny(
      deps,
      caller,
      { operation: 'confirm_update' },
      'confirm_updates',
      now,
    );
    if (!evaluated.ok) return evaluated;
    scope = evaluated.value;
    profile = await deps.store.getProfile(caller.grant.profile_id);
  } else {
    profile = await deps.store.getProfileBySubject(caller.subjectId);
  }
  if (!profile) return fail('not_found', 'there is no profile to decide on');
  const subjectId = profile.subject_id;
  const profileId = profile.profile_id;

  try {
    const result = await inTransaction(
      deps,
      async (tx) => {
        const written: Claim[] = [];
        const outcomes: DecisionOutcome[] = [];
        const decided: ProposalRecord[] = [];
        for (const decision of input.decisions) {
          const stored = await tx.store.listClaims(profileId);
          const out = await decide(tx, caller, scope, profileId, subjectId, stored, decision, now);
          if (out.claim) written.push(out.claim);
          if (out.proposal) decided.push(out.proposal);
          outcomes.push(out.outcome);
        }
        if (written.length > 0) {
          await announceClaims(
            tx,
            subjectId,
            'claims_written',
            {
              claim_ids: written.map((c) => c.claim_id),
              namespaces: written.map((c) => c.namespace),
              proposal_ids: decided.filter((p) => p.status !== 'rejected').map((p) => p.proposal_id),
            },
            now,
          );
        }
        await announceProposalsDecided(tx, subjectId, decided);
        return { written, outcomes };
      },
      { subject: subjectId },
    );
    return ok(
      envelope(deps, caller, subjectId, now, result.written, {
        writeback: 'none',
        decisions: result.outcomes,
        ...(scope ? { grant: grantEcho(scope) } : {}),
      }),
    );
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, error: e.failure };
    throw e;
  }
}

async function decide(
  tx: TxDeps,
  caller: Caller,
  scope: Scope | undefined,
  profileId: string,
  subjectId: string,
  stored: readonly Claim[],
  decision: ConfirmDecision,
  now: Date,
): Promise<{ claim?: Claim; proposal?: ProposalRecord; outcome: DecisionOutcome }> {
  const prov = { actor: actorOf(caller), grantId: scope?.grant.grant_id };
  if (!('proposal_id' in decision)) {
    const claim = stored.find((c) => c.claim_id === decision.claim_id);
    if (!claim || (scope && !isClaimVisible(scope, claim))) {
      throw new Refusal({
        code: 'not_found',
        description: `no claim "${decision.claim_id}" that you can confirm`,
      });
    }
    if (scope && !grantMayConfirm(claim)) throw notTheirs(claim);
    const confirmed = confirmedClaim(claim, now);
    await writeClaims(tx.store, profileId, [{ claim: confirmed, change: 'confirmed', prov }], now);
    await audit(tx, caller, subjectId, 'claim_confirmed', confirmed, claim.claim_id, now);
    return {
      claim: confirmed,
      outcome: { claim_id: claim.claim_id, action: 'confirm', status: 'confirmed' },
    };
  }

  const proposal = await tx.store.getProposal(decision.proposal_id);
  if (!proposal || proposal.profile_id !== profileId || (scope && !inScope(scope, proposal))) {
    throw new Refusal({
      code: 'not_found',
      description: `no proposal "${decision.proposal_id}" that you can decide`,
    });
  }
  // The claim the proposal updates: the one it targeted when it was made (a claim its grant could
  // see), if it is still there. Otherwise it writes a new claim, under the id its grantee was told,
  // beside any other claim of the key: a claim hidden from that grant is never matched by key.
  const target =
    proposal.target_claim_id === undefined
      ? undefined
      : stored.find((c) => c.claim_id === proposal.target_claim_id);
  // A grantee never overwrites a claim its grant cannot see. To it, such a target is as good as
  // deleted, and deleting the target closes the proposal (writeback/delete.ts): the same answer.
  if (proposal.status !== 'pending' || (scope && target && !isClaimVisible(scope, target))) {
    throw conflict(proposal);
  }
  const decided = { decided_at: now.toISOString(), decided_by: prov.actor };
  if (decision.action === 'reject') {
    const after = await tx.store.transitionProposal(proposal.proposal_id, 'pending', {
      status: 'rejected',
      ...decided,
    });
    if (!after) throw conflict(proposal);
    await audit(tx, caller, subjectId, 'proposal_rejected', proposal.claim, proposal.proposal_id, now);
    return {
      proposal: after,
      outcome: {
        proposal_id: proposal.proposal_id,
        claim_id: proposal.claim.claim_id,
        action: 'reject',
        status: 'rejected',
      },
    };
  }

  // Turning its own suggestion down is always a grant's to do; writing over what the person said
  // or confirmed is not.
  if (scope && target && !grantMayConfirm(target)) throw notTheirs(target);
  let base: Claim = proposal.claim;
  if (decision.action === 'edit') {
    const edited = checkOne(decision.claim, scope);
    if (!edited.ok) throw new Refusal(edited.error);
    if (qualifiedKey(edited.value) !== qualifiedKey(proposal.claim)) {
      throw new Refusal({
        code: 'invalid_request',
        description: `the edited claim must keep the proposal's key ${qualifiedKey(proposal.claim)}`,
      });
    }
    base = { ...edited.value, claim_id: proposal.claim.claim_id };
    // A grant's edit is a grantee's claim like any other: person-owned fields dropped.
    if (scope) base = granteeClaim(base, scope.grant.grantee_id).claim;
  }
  // A target gone since (only a replaced profile does that: a deletion closes the proposal) is
  // never reused: the claim gets a fresh id.
  const claimId =
    target?.claim_id ?? (proposal.target_claim_id === undefined ? base.claim_id : newId('claim'));
  const claim = confirmedClaim({ ...base, claim_id: claimId }, now);
  const after = await tx.store.transitionProposal(proposal.proposal_id, 'pending', {
    status: 'confirmed',
    ...decided,
    applied_claim_id: claimId,
    ...(decision.action === 'edit' ? { edited: true } : {}),
  });
  if (!after) throw conflict(proposal);
  const change = decision.action === 'edit' ? 'edited' : 'confirmed';
  await writeClaims(
    tx.store,
    profileId,
    [{ claim, change, prov: { ...prov, proposalId: proposal.proposal_id } }],
    now,
  );
  await audit(tx, caller, subjectId, 'proposal_confirmed', claim, proposal.proposal_id, now);
  return {
    claim,
    proposal: after,
    outcome: {
      proposal_id: proposal.proposal_id,
      claim_id: claimId,
      action: decision.action,
      status: 'confirmed',
    },
  };
}

function inScope(scope: Scope, proposal: ProposalRecord): boolean {
  const key = qualifiedKey(proposal.claim);
  return scope.namespaces.has(proposal.claim.namespace) && (scope.keys === undefined || scope.keys.has(key));
}

/** A grant's confirm_update never reaches what the person stated (issue 22 item 2). */
function notTheirs(claim: Claim): Refusal {
  return new Refusal({
    code: 'access_denied',
    description: `${qualifiedKey(claim)} is something the person said themselves; only they can confirm it or change it`,
  });
}

function conflict(proposal: ProposalRecord): Refusal {
  return new Refusal({
    code: 'conflict',
    description: `proposal ${proposal.proposal_id} was already decided`,
  });
}

async function audit(
  tx: AnyDeps,
  caller: Caller,
  subjectId: string,
  action: 'claim_confirmed' | 'proposal_confirmed' | 'proposal_rejected',
  claim: Claim,
  detail: string,
  now: Date,
): Promise<void> {
  await recordCallerAudit(tx, caller, subjectId, { action, claimKeys: [qualifiedKey(claim)], detail }, now);
}
