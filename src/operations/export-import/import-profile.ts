import { type Claim, qualifiedKey } from '../../model/claim.ts';
import type { ConsentGrant } from '../../model/consent-grant.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { vocabularyProblems } from '../../model/extensions/index.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { Profile } from '../../model/profile.ts';
import { parseInput } from '../../model/validate.ts';
import { IdConflictError, type StoreReader } from '../../store/store.ts';
import { forgetA2aTasksOf } from '../a2a/tasks.ts';
import { recordAudit } from '../audit/audit-log.ts';
import { announce, announceClaims } from '../changes.ts';
import type { Deps, TxDeps } from '../deps.ts';
import { rememberPairwise } from '../grants/consent-grants.ts';
import { inTransaction } from '../transaction.ts';
import { historyEntry } from '../writeback/apply.ts';

export interface ImportOptions {
  /** Replace an existing profile of the same subject instead of refusing. */
  readonly replace?: boolean;
}

export interface ImportSummary {
  readonly profile_id: string;
  readonly subject_id: string;
  readonly claims: number;
  readonly context_modifiers: number;
  /**
   * Grants this provider issued, restored (see restorableGrant): the subject's, to a client
   * registered here, under an unused grant id, from a file this provider exported.
   */
  readonly restored_grants: number;
  /** Other grants are not imported: grants are not transferable (SPEC §6.2 rule 2). */
  readonly skipped_grants: number;
}

/**
 * Imports a PPX profile document. Everything is checked before anything is written (schema,
 * vocabulary, duplicate ids), and the write, with its audit event, is one transaction: a bad
 * file writes nothing.
 */
export async function importProfile(
  deps: Deps,
  input: unknown,
  options: ImportOptions = {},
): Promise<Result<ImportSummary>> {
  const parsed = parseInput(Profile, input, 'the profile document');
  if (!parsed.ok) return parsed;
  const doc = parsed.value;
  const claims = doc.claims ?? [];
  const modifiers = doc.context_modifiers ?? [];

  const problems = [...claims.flatMap(vocabularyProblems), ...duplicateIds(claims, modifiers)];
  if (problems.length > 0) {
    return fail(
      'invalid_request',
      `the profile document has ${problems.length} problem(s): ${problems.slice(0, 5).join('; ')}`,
      {
        details: { problems: problems.slice(0, 50) },
      },
    );
  }

  const now = deps.clock();
  try {
    return await inTransaction(deps, async (tx) => {
      const result = await writeProfile(tx, doc, options, now);
      if (result.ok) {
        // Like export and deletion, the entry names the claims the act wrote.
        const claimKeys = (doc.claims ?? []).map(qualifiedKey);
        await recordAudit(
          tx,
          { kind: 'operator', id: 'operator' },
          doc.subject_id,
          { action: 'import', claimKeys },
          now,
        );
      }
      return result;
    });
  } catch (e) {
    // A claim or modifier id of the file is already used by another profile: ids are never reused.
    if (e instanceof IdConflictError)
      return fail('conflict', `id ${e.id} already belongs to another profile`);
    throw e;
  }
}

async function writeProfile(
  tx: TxDeps,
  doc: Profile,
  options: ImportOptions,
  now: Date,
): Promise<Result<ImportSummary>> {
  const claims = doc.claims ?? [];
  const modifiers = doc.context_modifiers ?? [];
  const store = tx.store;
  const existing = await store.getProfileBySubject(doc.subject_id);
  if (existing && !options.replace) {
    return fail(
      'conflict',
      `subject "${doc.subject_id}" already has a profile; import with replace to overwrite it`,
    );
  }
  if (existing) {
    await store.deleteProfile(existing.profile_id);
    // Every claim is replaced: no stored A2A answer may go on showing the old ones (docs/a2a.md).
    await forgetA2aTasksOf(tx, doc.subject_id, 'all');
  } else if (await store.getProfile(doc.profile_id)) {
    return fail('conflict', `profile id "${doc.profile_id}" already belongs to another subject`);
  }
  const profileId = existing ? existing.profile_id : doc.profile_id;
  await store.insertProfile({
    profile_id: profileId,
    subject_id: doc.subject_id,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    ...(doc.default_policy ? { default_policy: doc.default_policy } : {}),
  });
  await store.putClaims(profileId, claims);
  await store.putModifiers(profileId, modifiers);
  const at = new Date(doc.updated_at);
  const operator = { actor: { kind: 'operator' as const, id: 'operator' } };
  await store.appendClaimHistory(
    claims.map((c) => historyEntry(profileId, c.claim_id, c, 'imported', operator, at)),
  );
  const restored: string[] = [];
  for (const g of doc.consent_grants ?? []) {
    const grant = await restorableGrant(store, tx.provider.providerId, doc, profileId, g);
    if (grant === undefined) continue;
    await store.insertGrant(grant);
    await rememberPairwise(store, tx, grant);
    await announce(tx, doc.subject_id, 'grant_created', { grant_ids: [grant.grant_id] }, [grant.grant_id]);
    restored.push(grant.grant_id);
  }
  // A replaced profile's claims are gone too: every active grant of the subject may care.
  await announceClaims(
    tx,
    doc.subject_id,
    'profile_imported',
    {
      claim_ids: claims.map((c) => c.claim_id),
      namespaces: claims.map((c) => c.namespace),
      grant_ids: restored,
    },
    now,
    restored,
  );
  return ok({
    profile_id: profileId,
    subject_id: doc.subject_id,
    claims: claims.length,
    context_modifiers: modifiers.length,
    restored_grants: restored.length,
    skipped_grants: (doc.consent_grants?.length ?? 0) - restored.length,
  });
}

/**
 * A grant of the file that this provider issued, as it is to be stored again, or undefined.
 * Restoring is not a transfer (SPEC §6.2 rule 2): the file is this provider's own export, the
 * grant names the file's subject and a client registered here, and its id is unused (a grant
 * still stored — deleting a profile keeps its grants — is left as it is). Status is kept; an
 * `expired` grant with an expiry is stored `active`, since expiry is computed from `expires_at`.
 * The access mode is not in the published grant: restored grants are `continuous`.
 */
async function restorableGrant(
  tx: Pick<StoreReader, 'getClient' | 'getGrant'>,
  providerId: string,
  doc: Profile,
  profileId: string,
  g: ConsentGrant,
): Promise<GrantRecord | undefined> {
  if (doc.provider_id !== providerId || g.subject_id !== doc.subject_id) return undefined;
  if ((await tx.getClient(g.grantee_id)) === undefined) return undefined;
  if ((await tx.getGrant(g.grant_id)) !== undefined) return undefined;
  const status = g.status === 'expired' && g.expires_at !== undefined ? 'active' : g.status;
  return { ...g, status, profile_id: profileId, access_mode: 'continuous' };
}

function duplicateIds(claims: readonly Claim[], modifiers: readonly { modifier_id: string }[]): string[] {
  const seen = new Set<string>();
  const dups: string[] = [];
  for (const id of [...claims.map((c) => c.claim_id), ...modifiers.map((m) => m.modifier_id)]) {
    if (seen.has(id)) dups.push(`id ${id} appears more than once`);
    seen.add(id);
  }
  return dups;
}
