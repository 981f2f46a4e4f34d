import { z } from 'zod';
import { type Claim, qualifiedKey } from '../../model/claim.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { newId } from '../../model/ids.ts';
import type { ProposalRecord } from '../../model/proposal.ts';
import { Purpose } from '../../model/vocabulary.ts';
import { QUEUE_REASONS } from '../../model/writeback-rules.ts';
import { visibleClaims } from '../../policy/visibility.ts';
import {
  decideWriteback,
  granteeClaim,
  onlyConfirms,
  type WritebackDecision,
} from '../../policy/writeback.ts';
import { recordAudit, recordCallerAudit } from '../audit/audit-log.ts';
import { actorOf, type Caller } from '../callers/caller.ts';
import { announce, announceClaims } from '../changes.ts';
import type { Deps, TxDeps } from '../deps.ts';
import { evaluateOrDeny } from '../grants/access-check.ts';
import { grantEcho } from '../grants/published-grant.ts';
import { subjectProfile } from '../reads/subject-profile.ts';
import { inTransaction } from '../transaction.ts';
import { confirmedClaim, findTarget, type Provenance, writeClaims } from './apply.ts';
import { envelope, type ProposalOutcome, type WritebackResponse } from './envelope.ts';
import { sensitiveKeys } from './sensitive-keys.ts';
import { type ProposedClaim, problemsFailure, proposalProblems } from './validate.ts';

/** The most claims one propose_updates call may carry. */
const MAX_PROPOSED_CLAIMS = 50;

export const ProposeInput = z.strictObject({
  claims: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_PROPOSED_CLAIMS),
  purpose: Purpose.optional(),
});
export type ProposeInput = z.infer<typeof ProposeInput>;

/**
 * propose_updates (SPEC §9, §6.6). A grantee needs `propose_update`; every claim is checked
 * before anything is written, then the grant's writeback policy decides each one (apply, queue
 * for the subject, or refuse the whole request). Everything — claims, history, proposals, audit —
 * is written in one transaction. The subject's own proposals are applied as they are.
 */
export async function proposeUpdates(
  deps: Deps,
  caller: Caller,
  input: ProposeInput,
): Promise<Result<WritebackResponse>> {
  const now = deps.clock();
  if (caller.kind === 'subject') return proposeAsSubject(deps, caller, input, now);
  const grant = caller.grant;
  const denied = async (detail: string) =>
    recordCallerAudit(deps, caller, grant.subject_id, { action: 'denied', outcome: 'denied', detail }, now);
  const scope = await evaluateOrDeny(
    deps,
    caller,
    { operation: 'propose_update', ...(input.purpose !== undefined ? { purpose: input.purpose } : {}) },
    'propose_updates',
    now,
  );
  if (!scope.ok) return scope;
  const { claims, problems } = proposalProblems(input.claims, scope.value);
  if (problems.length > 0) {
    const failure = problemsFailure(problems, grant.grant_id);
    await denied(`propose_updates: ${failure.error.code}`);
    return failure;
  }
  const profile = await deps.store.getProfile(grant.profile_id);
  if (!profile) return fail('not_found', 'the profile behind this grant no longer exists');

  const outcome = await inTransaction(
    deps,
    async (tx) => {
      // A proposal finds only what its grant can see (the read path's visibility, cross-domain
      // rules included): for a claim hidden from the grant it behaves as if no claim existed.
      const visible = visibleClaims(scope.value, await tx.store.listClaims(profile.profile_id));
      const sensitive = await sensitiveKeys(tx.store, profile.profile_id);
      const planned = claims.map((proposed) => plan(grant, proposed, visible, sensitive));
      if (planned.some((p) => p.decision.kind === 'refuse')) return undefined;
      return writeProposals(tx, grant, profile.profile_id, planned, input.purpose, now);
    },
    { subject: grant.subject_id },
  );
  if (outcome === undefined) {
    await denied('propose_updates: writeback_forbidden');
    return fail('writeback_forbidden', 'the grant does not allow this grantee to write to the profile', {
      grantId: grant.grant_id,
    });
  }
  return ok(
    envelope(deps, caller, grant.subject_id, now, outcome.applied, {
      writeback: outcome.proposals.some((p) => p.status === 'pending') ? 'proposal_created' : 'none',
      proposals: outcome.proposals,
      grant: grantEcho(scope.value),
    }),
  );
}

interface Planned {
  readonly claim: Claim;
  readonly target: Claim | undefined;
  readonly decision: WritebackDecision;
}

/**
 * What becomes of one proposed claim. `visible` is what the grant can see of the stored claims:
 * a claim hidden from it is never a target, so it decides nothing here (not the id, not the
 * policy: a hidden `user_stated` claim queues nothing) and is never overwritten.
 */
function plan(
  grant: GrantRecord,
  proposed: ProposedClaim,
  visible: readonly Claim[],
  sensitive: ReadonlySet<string>,
): Planned {
  const target = findTarget(visible, proposed, proposed.claim_id);
  // A new claim always gets an id of ours: a grantee never picks (or reuses) a stored id. The
  // person-owned fields are dropped, and "the person said this" becomes "imported from this app".
  const { claim, claimedStated } = granteeClaim(
    { ...proposed, claim_id: target?.claim_id ?? newId('claim') },
    grant.grantee_id,
  );
  let decision = decideWriteback(grant.writeback_policy, claim, {
    existing: target,
    sensitiveKeys: sensitive,
  });
  // Only the subject says what they stated: a grantee's "user_stated" claim waits for them.
  if (decision.kind === 'apply' && claimedStated) {
    decision = {
      kind: 'queue',
      reason: QUEUE_REASONS.proposedAsStated,
    };
  }
  return { claim, target, decision };
}

async function writeProposals(
  tx: TxDeps,
  grant: GrantRecord,
  profileId: string,
  planned: readonly Planned[],
  purpose: string | undefined,
  now: Date,
): Promise<{ applied: Claim[]; proposals: ProposalOutcome[] }> {
  const actor = { kind: 'grantee' as const, id: grant.grantee_id };
  const applied: Claim[] = [];
  const outcomes: ProposalOutcome[] = [];
  const writes: { claim: Claim; change: 'applied_proposal'; prov: Provenance }[] = [];
  for (const p of planned) {
    const proposalId = newId('proposal');
    const apply = p.decision.kind === 'apply';
    const claim: Claim = {
      ...p.claim,
      review: { ...p.claim.review, review_status: apply ? 'unreviewed' : 'pending_confirmation' },
    };
    const record: ProposalRecord = {
      proposal_id: proposalId,
      profile_id: profileId,
      grant_id: grant.grant_id,
      client_id: grant.grantee_id,
      status: apply ? 'applied' : 'pending',
      created_at: now.toISOString(),
      claim,
      ...(p.decision.kind === 'queue' ? { reason: p.decision.reason } : {}),
      ...(p.target !== undefined ? { target_claim_id: p.target.claim_id } : {}),
      ...(purpose !== undefined ? { purpose } : {}),
      ...(apply
        ? { decided_at: now.toISOString(), decided_by: actor, applied_claim_id: claim.claim_id }
        : {}),
    };
    await tx.store.insertProposal(record);
    if (apply) {
      applied.push(claim);
      writes.push({
        claim,
        change: 'applied_proposal',
        prov: { actor, grantId: grant.grant_id, proposalId },
      });
    }
    await recordAudit(
      tx,
      actor,
      grant.subject_id,
      {
        action: apply ? 'proposal_applied' : 'proposal_created',
        grantId: grant.grant_id,
        claimKeys: [qualifiedKey(claim)],
        detail: proposalId,
      },
      now,
    );
    outcomes.push({
      proposal_id: proposalId,
      claim_id: claim.claim_id,
      key: qualifiedKey(claim),
      status: record.status,
    });
  }
  await writeClaims(tx.store, profileId, writes, now);
  const queued = outcomes.filter((o) => o.status === 'pending');
  if (queued.length > 0) {
    await announce(
      tx,
      grant.subject_id,
      'proposal_created',
      {
        proposal_ids: queued.map((o) => o.proposal_id),
        claim_ids: queued.map((o) => o.claim_id),
        namespaces: planned.filter((p) => p.decision.kind === 'queue').map((p) => p.claim.namespace),
      },
      [grant.grant_id],
    );
  }
  if (writes.length > 0) {
    await announceClaims(
      tx,
      grant.subject_id,
      'claims_written',
      {
        claim_ids: applied.map((c) => c.claim_id),
        namespaces: applied.map((c) => c.namespace),
        proposal_ids: writes.map((w) => w.prov.proposalId).filter((id): id is string => id !== undefined),
      },
      now,
      [grant.grant_id],
    );
  }
  return { applied, proposals: outcomes };
}

async function proposeAsSubject(
  deps: Deps,
  caller: Extract<Caller, { kind: 'subject' }>,
  input: ProposeInput,
  now: Date,
): Promise<Result<WritebackResponse>> {
  const { claims, problems } = proposalProblems(input.claims, undefined);
  if (problems.length > 0) return problemsFailure(problems);
  const own = await subjectProfile(deps, caller.subjectId);
  if (!own.ok) return own;
  const profile = own.value;
  const written = await inTransaction(
    deps,
    async (tx) => {
      const stored = await tx.store.listClaims(profile.profile_id);
      const writes = claims.map((proposed) => {
        const target = findTarget(stored, proposed, proposed.claim_id);
        const prov = { actor: actorOf(caller) };
        // The same value again is a confirmation: the stored provenance stays (issue 22 item 7).
        if (target && onlyConfirms(target, proposed)) {
          return { claim: confirmedClaim(target, now), change: 'confirmed' as const, prov };
        }
        const claim: Claim = { ...proposed, claim_id: target?.claim_id ?? newId('claim') };
        return { claim, change: target ? ('updated' as const) : ('created' as const), prov };
      });
      await writeClaims(tx.store, profile.profile_id, writes, now);
      const keysOf = (confirmed: boolean) =>
        writes.filter((w) => (w.change === 'confirmed') === confirmed).map((w) => qualifiedKey(w.claim));
      for (const [action, keys] of [
        ['proposal_applied', keysOf(false)],
        ['claim_confirmed', keysOf(true)],
      ] as const) {
        if (keys.length === 0) continue;
        await recordCallerAudit(
          tx,
          caller,
          caller.subjectId,
          { action, claimKeys: keys, detail: 'by the subject' },
          now,
        );
      }
      await announceClaims(
        tx,
        caller.subjectId,
        'claims_written',
        { claim_ids: writes.map((w) => w.claim.claim_id), namespaces: writes.map((w) => w.claim.namespace) },
        now,
      );
      return writes.map((w) => w.claim);
    },
    { subject: caller.subjectId },
  );
  return ok(envelope(deps, caller, caller.subjectId, now, written, { writeback: 'none', proposals: [] }));
}
