import { z } from 'zod';
import { type Claim, qualifiedKey } from '../../model/claim.ts';
import type { ContextModifier } from '../../model/context-modifier.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { isSupportedNamespace } from '../../model/extensions/index.ts';
import type { ProfileRecord } from '../../model/profile-record.ts';
import { forgetA2aTasksOf } from '../a2a/tasks.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import { actorOf, type Caller } from '../callers/caller.ts';
import { announceClaims, announceProposalsDecided } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { ownProfile } from '../reads/subject-profile.ts';
import { inTransaction } from '../transaction.ts';
import { historyEntry } from './apply.ts';
import { sensitiveKeysSetting } from './sensitive-keys.ts';

export const ClaimParams = z.strictObject({ claim_id: z.string().min(1).max(300) });
export const NamespaceParams = z.strictObject({ namespace: z.string().min(1).max(100) });

export const DeletionResult = z.strictObject({
  profile_id: z.string(),
  deleted_claim_ids: z.array(z.string()),
  deleted_modifier_ids: z.array(z.string()),
  /** Pending proposals closed (rejected) because what they would change is gone. */
  closed_proposal_ids: z.array(z.string()),
  profile_deleted: z.boolean(),
});
export type DeletionResult = z.infer<typeof DeletionResult>;

/**
 * Deletion (SPEC §10 MUST 6), by the subject only: one claim, every claim and context modifier
 * of a namespace, or the whole profile. Each deleted claim gets a `deleted` history entry and the
 * deletion is audited, in the same transaction. Afterwards no read and no export contains it.
 */
const NOT_OWNER = 'only the subject can delete profile data';

export async function deleteClaim(
  deps: Deps,
  caller: Caller,
  params: z.infer<typeof ClaimParams>,
): Promise<Result<DeletionResult>> {
  const profile = await ownProfile(deps, caller, NOT_OWNER);
  if (!profile.ok) return profile;
  return remove(deps, caller, profile.value, (claims) => ({
    claims: claims.filter((c) => c.claim_id === params.claim_id),
    modifiers: [],
    missing: `there is no claim "${params.claim_id}" in this profile`,
  }));
}

export async function deleteNamespace(
  deps: Deps,
  caller: Caller,
  params: z.infer<typeof NamespaceParams>,
): Promise<Result<DeletionResult>> {
  const profile = await ownProfile(deps, caller, NOT_OWNER);
  if (!profile.ok) return profile;
  if (!isSupportedNamespace(params.namespace)) {
    return fail('unknown_namespace', `namespace "${params.namespace}" is not supported by this provider`);
  }
  const modifiers = await deps.store.listModifiers(profile.value.profile_id);
  return remove(deps, caller, profile.value, (claims) => ({
    claims: claims.filter((c) => c.namespace === params.namespace),
    modifiers: modifiers.filter((m) => m.namespace === params.namespace),
    namespace: params.namespace,
  }));
}

/** Deletes claims, modifiers and proposals; grants stay as evidence of consent but read nothing. */
export async function deleteWholeProfile(deps: Deps, caller: Caller): Promise<Result<DeletionResult>> {
  const profile = await ownProfile(deps, caller, NOT_OWNER);
  if (!profile.ok) return profile;
  const modifiers = await deps.store.listModifiers(profile.value.profile_id);
  return remove(deps, caller, profile.value, (claims) => ({
    claims,
    modifiers,
    whole: true,
  }));
}

interface Selection {
  readonly claims: readonly Claim[];
  readonly modifiers: readonly ContextModifier[];
  /** When set, nothing selected is a 404 with this text. */
  readonly missing?: string;
  readonly namespace?: string;
  readonly whole?: true;
}

async function remove(
  deps: Deps,
  caller: Caller,
  profile: ProfileRecord,
  select: (claims: readonly Claim[]) => Selection,
): Promise<Result<DeletionResult>> {
  const now = deps.clock();
  const at = now.toISOString();
  const profileId = profile.profile_id;
  const prov = { actor: actorOf(caller) };
  return inTransaction(
    deps,
    async (tx): Promise<Result<DeletionResult>> => {
      const before = await tx.store.listClaims(profileId);
      const sel = select(before);
      if (sel.missing !== undefined && sel.claims.length === 0) return fail('not_found', sel.missing);
      const ids = sel.claims.map((c) => c.claim_id);
      const modifierIds = sel.modifiers.map((m) => m.modifier_id);
      // Pending proposals in what is deleted would bring it back if confirmed later: close them.
      const pending = await tx.store.listProposals(profileId, 'pending');
      const closing = pending.filter((p) =>
        sel.whole
          ? false
          : sel.namespace !== undefined
            ? p.claim.namespace === sel.namespace
            : p.target_claim_id !== undefined && ids.includes(p.target_claim_id),
      );
      for (const p of closing) {
        await tx.store.transitionProposal(p.proposal_id, 'pending', {
          status: 'rejected',
          decided_at: at,
          decided_by: prov.actor,
        });
      }
      await tx.store.appendClaimHistory(
        sel.claims.map((c) => historyEntry(profileId, c.claim_id, null, 'deleted', prov, now)),
      );
      // A2A tasks hold what a grantee was shown (docs/a2a.md): deleted claims must not live on
      // there, and a grant that could not see them must not notice their going.
      await forgetA2aTasksOf(
        tx,
        profile.subject_id,
        sel.whole ? 'all' : { claims: sel.claims, modifiers: sel.modifiers, before },
      );
      if (sel.whole) {
        await tx.store.deleteProfile(profileId);
        await tx.store.deleteSetting(sensitiveKeysSetting(profileId));
      } else {
        await tx.store.deleteClaims(profileId, ids);
        await tx.store.deleteModifiers(profileId, modifierIds);
        await tx.store.touchProfile(profileId, at);
      }
      const namespaces = sel.namespace !== undefined ? [sel.namespace] : sel.claims.map((c) => c.namespace);
      if (sel.whole) {
        await announceClaims(tx, profile.subject_id, 'profile_deleted', { claim_ids: ids, namespaces }, now);
      } else if (ids.length > 0 || modifierIds.length > 0) {
        await announceClaims(tx, profile.subject_id, 'claims_deleted', { claim_ids: ids, namespaces }, now);
      }
      await announceProposalsDecided(tx, profile.subject_id, closing);
      await recordCallerAudit(
        tx,
        caller,
        profile.subject_id,
        {
          action: sel.whole ? 'profile_deleted' : 'claim_deleted',
          claimKeys: sel.claims.map(qualifiedKey),
          ...(sel.namespace !== undefined ? { detail: `namespace ${sel.namespace}` } : {}),
        },
        now,
      );
      return ok({
        profile_id: profileId,
        deleted_claim_ids: ids,
        deleted_modifier_ids: modifierIds,
        closed_proposal_ids: closing.map((p) => p.proposal_id),
        profile_deleted: sel.whole === true,
      });
    },
    { subject: profile.subject_id },
  );
}
