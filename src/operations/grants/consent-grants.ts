import { z } from 'zod';
import { namespaceOfKey, normalizeKey } from '../../model/claim.ts';
import { AccessMode, type ConsentGrant } from '../../model/consent-grant.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import {
  isSupportedNamespace,
  unregisteredKeys,
  unregisteredKeysProblem,
} from '../../model/extensions/index.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { newId } from '../../model/ids.ts';
import {
  CrossDomainTransfer,
  DateTime,
  Operation,
  Purpose,
  Redisclosure,
  WritebackPolicy,
} from '../../model/vocabulary.ts';
import type { StoreTx } from '../../store/store.ts';
import { recordAudit, recordCallerAudit } from '../audit/audit-log.ts';
import { type Caller, subjectIdFor } from '../callers/caller.ts';
import { announce, announceIfExpired } from '../changes.ts';
import { revokeGrantEverywhere } from '../consent/revocation.ts';
import type { AnyDeps, Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';
import { publishGrant } from './published-grant.ts';

/** What a new grant asks for; defaults follow SPEC §6.5–§6.6 (deny, review_required). */
export const GrantDraft = z.strictObject({
  subject_id: z.string().min(1),
  client_id: z.string().min(1),
  purposes: z.array(Purpose).min(1),
  allowed_domains: z.array(z.string().min(1)).min(1),
  allowed_namespaces: z.array(z.string().min(1)).min(1),
  allowed_claim_keys: z.array(z.string().min(1)).optional(),
  allowed_operations: z.array(Operation).min(1),
  cross_domain_transfer: CrossDomainTransfer.default('deny'),
  writeback_policy: WritebackPolicy.default('review_required'),
  redisclosure: Redisclosure.default('forbidden'),
  expires_at: DateTime.optional(),
  access_mode: AccessMode.default('continuous'),
});
export type GrantDraft = z.input<typeof GrantDraft>;

/**
 * Creates an active grant. Used by the operator's `mint` and by the consent flow once the
 * subject approves (inside the approval's transaction). The draft must name a registered
 * client, an existing profile, supported namespaces and keys inside those namespaces. The
 * grant, its pairwise id and its audit event commit together.
 */
export async function createGrant(
  deps: AnyDeps,
  draft: GrantDraft,
  actor: 'subject' | 'operator',
): Promise<Result<GrantRecord>> {
  const parsed = GrantDraft.safeParse(draft);
  if (!parsed.success)
    return fail('invalid_request', `grant draft is not valid: ${parsed.error.issues[0]?.message}`);
  const d = parsed.data;
  // SPEC §13.3: a one-time grant is for one session and never allows export.
  if (d.access_mode === 'single_use' && d.allowed_operations.includes('export')) {
    return fail('invalid_request', 'a single_use grant cannot allow export (SPEC §13.3)');
  }
  const client = await deps.store.getClient(d.client_id);
  if (!client) return fail('unknown_client', `client "${d.client_id}" is not registered`);
  const profile = await deps.store.getProfileBySubject(d.subject_id);
  if (!profile) return fail('not_found', `subject "${d.subject_id}" has no profile`);
  const badNs = d.allowed_namespaces.find((ns) => !isSupportedNamespace(ns));
  if (badNs !== undefined)
    return fail('unknown_namespace', `namespace "${badNs}" is not supported by this provider`);
  const keys = d.allowed_claim_keys?.map(normalizeKey);
  const stray = keys?.find((k) => !d.allowed_namespaces.includes(namespaceOfKey(k)));
  if (stray !== undefined) {
    return fail('invalid_request', `key "${stray}" lies outside the grant's namespaces`);
  }
  const unknownKeys = unregisteredKeys(keys ?? []);
  if (unknownKeys.length > 0) return fail('invalid_request', unregisteredKeysProblem(unknownKeys));
  const now = deps.clock();
  const grant: GrantRecord = {
    grant_id: newId('grant'),
    subject_id: d.subject_id,
    grantee_id: d.client_id,
    status: 'active',
    granted_at: now.toISOString(),
    ...(d.expires_at !== undefined ? { expires_at: new Date(d.expires_at).toISOString() } : {}),
    purposes: unique(d.purposes),
    allowed_domains: unique(d.allowed_domains),
    allowed_namespaces: unique(d.allowed_namespaces),
    ...(keys !== undefined ? { allowed_claim_keys: unique(keys) } : {}),
    allowed_operations: unique(d.allowed_operations),
    cross_domain_transfer: d.cross_domain_transfer,
    writeback_policy: d.writeback_policy,
    redisclosure: d.redisclosure,
    audit: { log_access: true, notify_on_writeback: true },
    profile_id: profile.profile_id,
    access_mode: d.access_mode,
  };
  await inTransaction(
    deps,
    async (tx) => {
      await tx.store.insertGrant(grant);
      await rememberPairwise(tx.store, deps, grant);
      await announce(tx, grant.subject_id, 'grant_created', { grant_ids: [grant.grant_id] }, [
        grant.grant_id,
      ]);
      await recordAudit(
        tx,
        { kind: actor, id: actor === 'subject' ? d.subject_id : 'operator' },
        d.subject_id,
        { action: 'grant_created', grantId: grant.grant_id },
        now,
      );
    },
    { subject: grant.subject_id },
  );
  return ok(grant);
}

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

/** list_consent_grants (SPEC §9): the subject's grants, or a grantee's own grant. */
export async function listConsentGrants(
  deps: Deps,
  caller: Caller,
): Promise<Result<{ grants: ConsentGrant[] }>> {
  const now = deps.clock();
  if (caller.kind === 'grant') {
    const shown = subjectIdFor(deps, caller, caller.grant.subject_id);
    await recordCallerAudit(deps, caller, caller.grant.subject_id, { action: 'list_grants' }, now);
    return ok({ grants: [publishGrant(caller.grant, shown, now)] });
  }
  const grants = await deps.store.listGrantsBySubject(caller.subjectId);
  for (const g of grants) await announceIfExpired(deps, g, now);
  return ok({ grants: grants.map((g) => publishGrant(g, caller.subjectId, now)) });
}

export const RevokeInput = z.strictObject({ grant_id: z.string().min(1).max(300) });

/**
 * revoke_consent_grant (SPEC §9, §6.2 rule 7): the subject revokes any of their grants; a
 * grantee may give up its own grant. Any other grant id is answered as not found, whether or not
 * it exists. Revocation is written to the store, which every instance reads on each request.
 */
export async function revokeConsentGrant(
  deps: Deps,
  caller: Caller,
  input: z.infer<typeof RevokeInput>,
): Promise<Result<{ grant: ConsentGrant }>> {
  const notFound = fail('not_found', `no grant "${input.grant_id}" that you can revoke`);
  const grant = await deps.store.getGrant(input.grant_id);
  if (!grant) return notFound;
  if (caller.kind === 'subject' && grant.subject_id !== caller.subjectId) return notFound;
  if (caller.kind === 'grant' && grant.grant_id !== caller.grant.grant_id) return notFound;
  const now = deps.clock();
  // The grant, its refresh families and the audit event end in one commit.
  const revoked = await inTransaction(
    deps,
    async (tx) => {
      const by = caller.kind === 'grant' ? 'client_revoked' : undefined;
      const done = await revokeGrantEverywhere(tx, grant.grant_id, now, by);
      if (done) {
        await recordCallerAudit(
          tx,
          caller,
          grant.subject_id,
          { action: 'revoke', grantId: grant.grant_id },
          now,
        );
      }
      return done;
    },
    { subject: grant.subject_id },
  );
  if (!revoked) return notFound;
  return ok({ grant: publishGrant(revoked, subjectIdFor(deps, caller, grant.subject_id), now) });
}

/**
 * The client of a new grant will see the subject under a pairwise id (docs/policy.md); record it,
 * so that the client can name the subject by it when it asks for consent again.
 */
export async function rememberPairwise(
  store: Pick<StoreTx, 'rememberPairwiseSubject'>,
  deps: Pick<Deps, 'pairwise'>,
  grant: Pick<GrantRecord, 'grantee_id' | 'subject_id'>,
): Promise<void> {
  const pairwiseId = deps.pairwise.subject(grant.subject_id, grant.grantee_id);
  await store.rememberPairwiseSubject(grant.grantee_id, pairwiseId, grant.subject_id);
}
