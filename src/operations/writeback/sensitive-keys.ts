import { z } from 'zod';
import { normalizeKey } from '../../model/claim.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { keyDefinitionOf } from '../../model/extensions/index.ts';
import type { StoreReader } from '../../store/store.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import type { Caller } from '../callers/caller.ts';
import { announce } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { ownProfile } from '../reads/subject-profile.ts';
import { inTransaction } from '../transaction.ts';

// Keys the subject marks sensitive (docs/writeback.md): under `auto_for_low_risk` a proposal on
// such a key is never low risk, so it always waits for the subject's review. The list lives in
// the `sensitive_keys:<profile_id>` setting, normalized (core unprefixed, others
// `namespace.key`) and sorted; only the subject reads or sets it.

export const SensitiveKeysInput = z.strictObject({
  sensitive_keys: z.array(z.string().min(1).max(200)).max(500),
});
export type SensitiveKeysInput = z.infer<typeof SensitiveKeysInput>;
export const SensitiveKeys = z.strictObject({ sensitive_keys: z.array(z.string()) });
export type SensitiveKeys = z.infer<typeof SensitiveKeys>;

/** The setting a profile's sensitive keys live in. */
export function sensitiveKeysSetting(profileId: string): string {
  return `sensitive_keys:${profileId}`;
}

/** Keys the subject marked sensitive; an absent or unreadable setting is none. */
export async function sensitiveKeys(
  store: Pick<StoreReader, 'getSetting'>,
  profileId: string,
): Promise<ReadonlySet<string>> {
  const raw = await store.getSetting(sensitiveKeysSetting(profileId));
  if (raw === undefined) return new Set();
  try {
    const list: unknown = JSON.parse(raw);
    return new Set(Array.isArray(list) ? list.filter((k): k is string => typeof k === 'string') : []);
  } catch {
    return new Set();
  }
}

const NOT_OWNER = "sensitive keys are the subject's setting; a grant token cannot use them";

/** GET /v1/profile/sensitive-keys */
export async function getSensitiveKeys(deps: Deps, caller: Caller): Promise<Result<SensitiveKeys>> {
  const profile = await ownProfile(deps, caller, NOT_OWNER);
  if (!profile.ok) return profile;
  return ok({ sensitive_keys: [...(await sensitiveKeys(deps.store, profile.value.profile_id))].sort() });
}

/**
 * POST /v1/profile/sensitive-keys: replaces the list. Every key must be a registered one. The
 * setting and its audit event commit together.
 */
export async function setSensitiveKeys(
  deps: Deps,
  caller: Caller,
  input: SensitiveKeysInput,
): Promise<Result<SensitiveKeys>> {
  const profile = await ownProfile(deps, caller, NOT_OWNER);
  if (!profile.ok) return profile;
  const keys = [...new Set(input.sensitive_keys.map(normalizeKey))].sort();
  const unknown = keys.filter((k) => keyDefinitionOf(k) === undefined);
  if (unknown.length > 0) {
    return fail(
      'invalid_request',
      `not a key of a supported namespace: ${unknown.map((k) => `"${k}"`).join(', ')}`,
      {
        details: { unknown_keys: unknown },
      },
    );
  }
  const now = deps.clock();
  const { profile_id: profileId, subject_id: subjectId } = profile.value;
  await inTransaction(deps, async (tx) => {
    await tx.store.putSetting(sensitiveKeysSetting(profileId), JSON.stringify(keys));
    await recordCallerAudit(
      tx,
      caller,
      subjectId,
      { action: 'sensitive_keys_changed', claimKeys: keys },
      now,
    );
    // The subject's own setting: no grantee reads it, so the event names no grant.
    await announce(tx, subjectId, 'sensitive_keys_changed', {});
  });
  return ok({ sensitive_keys: keys });
}
