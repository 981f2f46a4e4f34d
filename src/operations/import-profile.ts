import type { Claim } from '../model/claim.ts';
import { fail, ok, type Result } from '../model/errors.ts';
import { vocabularyProblems } from '../model/extensions/index.ts';
import { Profile } from '../model/profile.ts';
import { parseInput } from '../model/validate.ts';
import { IdConflictError } from '../store/store.ts';
import { recordAudit } from './audit.ts';
import type { Deps } from './deps.ts';

export interface ImportOptions {
  /** Replace an existing profile of the same subject instead of refusing. */
  readonly replace?: boolean;
}

export interface ImportSummary {
  readonly profile_id: string;
  readonly subject_id: string;
  readonly claims: number;
  readonly context_modifiers: number;
  /** Grants in the file are not imported: grants are not transferable (SPEC §6.2 rule 2). */
  readonly skipped_grants: number;
}

/**
 * Imports a PPX profile document. Everything is checked before anything is written (schema,
 * vocabulary, duplicate ids), and the write is one transaction: a bad file writes nothing.
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
  let result: Result<ImportSummary>;
  try {
    result = await writeProfile(deps, doc, options);
  } catch (e) {
    // A claim or modifier id of the file is already used by another profile: ids are never reused.
    if (e instanceof IdConflictError)
      return fail('conflict', `id ${e.id} already belongs to another profile`);
    throw e;
  }
  if (result.ok) {
    await recordAudit(deps, { kind: 'operator', id: 'operator' }, doc.subject_id, { action: 'import' }, now);
  }
  return result;
}

function writeProfile(deps: Deps, doc: Profile, options: ImportOptions): Promise<Result<ImportSummary>> {
  const claims = doc.claims ?? [];
  const modifiers = doc.context_modifiers ?? [];
  return deps.store.transaction(async (tx): Promise<Result<ImportSummary>> => {
    const existing = await tx.getProfileBySubject(doc.subject_id);
    if (existing && !options.replace) {
      return fail(
        'conflict',
        `subject "${doc.subject_id}" already has a profile; import with replace to overwrite it`,
      );
    }
    if (existing) await tx.deleteProfile(existing.profile_id);
    else if (await tx.getProfile(doc.profile_id)) {
      return fail('conflict', `profile id "${doc.profile_id}" already belongs to another subject`);
    }
    const profileId = existing ? existing.profile_id : doc.profile_id;
    await tx.insertProfile({
      profile_id: profileId,
      subject_id: doc.subject_id,
      created_at: doc.created_at,
      updated_at: doc.updated_at,
      ...(doc.default_policy ? { default_policy: doc.default_policy } : {}),
    });
    await tx.putClaims(profileId, claims);
    await tx.putModifiers(profileId, modifiers);
    return ok({
      profile_id: profileId,
      subject_id: doc.subject_id,
      claims: claims.length,
      context_modifiers: modifiers.length,
      skipped_grants: doc.consent_grants?.length ?? 0,
    });
  });
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
