import { qualifiedKey } from '../../model/claim.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { SUPPORTED_EXTENSIONS } from '../../model/extensions/index.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { Profile } from '../../model/profile.ts';
import type { ProfileRecord } from '../../model/profile-record.ts';
import { PPX_VERSION } from '../../model/vocabulary.ts';
import { visibleClaims } from '../../policy/visibility.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import { type Caller, subjectIdFor } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';
import { evaluateOrDeny } from '../grants/access-check.ts';
import { publishGrant } from '../grants/published-grant.ts';
import { changeTimes } from '../reads/freshness.ts';
import { subjectProfile } from '../reads/subject-profile.ts';

/**
 * export_profile (SPEC §9): the profile as a PPX document. The subject gets everything,
 * grants included. A grantee needs the `export` operation and gets only what its grant covers,
 * under pairwise ids, with its own grant as the only one listed.
 */
export async function exportProfile(deps: Deps, caller: Caller): Promise<Result<Profile>> {
  const now = deps.clock();
  const extensions = SUPPORTED_EXTENSIONS.map((e) => ({ namespace: e.namespace, version: e.version }));
  if (caller.kind === 'subject') {
    const own = await subjectProfile(deps, caller.subjectId);
    if (!own.ok) return own;
    const profile = own.value;
    const [claims, modifiers, grants] = await Promise.all([
      deps.store.listClaims(profile.profile_id),
      deps.store.listModifiers(profile.profile_id),
      deps.store.listGrantsBySubject(caller.subjectId),
    ]);
    await recordCallerAudit(
      deps,
      caller,
      caller.subjectId,
      { action: 'export', claimKeys: claims.map(qualifiedKey) },
      now,
    );
    return ok({
      ppx_version: PPX_VERSION,
      profile_id: profile.profile_id,
      subject_id: profile.subject_id,
      provider_id: deps.provider.providerId,
      created_at: profile.created_at,
      updated_at: profile.updated_at,
      ...(profile.default_policy ? { default_policy: profile.default_policy } : {}),
      // The store's lists are shared between requests (typed readonly); the export owns its copies.
      claims: [...claims],
      context_modifiers: [...modifiers],
      consent_grants: grants.map((g) => publishGrant(g, caller.subjectId, now)),
      extensions,
    });
  }

  const grant = caller.grant;
  const scope = await evaluateOrDeny(deps, caller, { operation: 'export' }, 'export', now);
  if (!scope.ok) return scope;
  const profile = await deps.store.getProfile(grant.profile_id);
  if (!profile) return fail('not_found', 'the profile behind this grant no longer exists');
  const claims = visibleClaims(scope.value, await deps.store.listClaims(profile.profile_id));
  await recordCallerAudit(
    deps,
    caller,
    grant.subject_id,
    { action: 'export', claimKeys: claims.map(qualifiedKey) },
    now,
  );
  const shown = subjectIdFor(deps, caller, grant.subject_id);
  return ok({
    ppx_version: PPX_VERSION,
    profile_id: deps.pairwise.profile(profile.profile_id, caller.clientId),
    subject_id: shown,
    provider_id: deps.provider.providerId,
    created_at: profile.created_at,
    updated_at: await projectionUpdatedAt(deps, grant, profile),
    claims,
    // Context modifiers describe the subject beyond any one key; a grantee's export leaves them out.
    context_modifiers: [],
    consent_grants: [publishGrant(grant, shown, now)],
    extensions: extensions.filter((e) => scope.value.namespaces.has(e.namespace)),
  });
}

/**
 * When the claims the grant can see last changed, at the freshness granularity (as MCP
 * `freshness` states it), never before `created_at`. The profile's own `updated_at` would tell
 * the grantee when anything changed, including outside its grant, which must look like nothing.
 */
async function projectionUpdatedAt(deps: Deps, grant: GrantRecord, profile: ProfileRecord): Promise<string> {
  const times = await changeTimes(deps, grant, grant.allowed_namespaces);
  const last = [...times.values()].sort().at(-1);
  return last !== undefined && Date.parse(last) > Date.parse(profile.created_at) ? last : profile.created_at;
}
