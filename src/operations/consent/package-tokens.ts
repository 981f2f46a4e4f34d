import { randomToken } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import type { GrantRecord, TokenFamilyRecord } from '../../store/store.ts';
import { recordAudit } from '../audit.ts';
import type { Deps } from '../deps.ts';
import { issuePackageToken } from '../issue-tokens.ts';
import { latestExpiry } from './refresh.ts';
import { accessTtl, newRefreshToken, type TokenResponse } from './tokens.ts';

/**
 * Starts the refresh family of a grant package and issues its first token (WIRE-NOTES §4): one
 * access token and one refresh family over every child. Single-use children are consumed by this
 * issuance: readable until this token expires. A package whose children are all single-use gets
 * no refresh token.
 */
export async function issuePackageFamily(
  deps: Deps,
  grants: readonly GrantRecord[],
  clientId: string,
  packageId: string,
  resource?: string,
): Promise<TokenResponse> {
  const now = deps.clock();
  const first = grants[0];
  if (!first) throw new Error('a package needs at least one grant');
  const family: TokenFamilyRecord = {
    family_id: `fam_${randomToken(16)}`,
    client_id: clientId,
    subject_id: first.subject_id,
    grant_ids: grants.map((g) => g.grant_id),
    package_id: packageId,
    ...(resource !== undefined ? { resource } : {}),
    status: 'active',
    created_at: now.toISOString(),
  };
  await deps.store.insertTokenFamily(family);
  const endsAt = latestExpiry(grants);
  const ttl = accessTtl(deps, endsAt, now);
  const access = await issuePackageToken(
    deps,
    { packageId, grantIds: family.grant_ids, clientId },
    ttl,
    resource,
  );
  const tokenEnd = new Date(now.getTime() + ttl * 1000).toISOString();
  for (const g of grants) {
    if (g.access_mode === 'single_use') await deps.store.shortenGrantExpiry(g.grant_id, tokenEnd);
    await recordAudit(
      deps,
      { kind: 'grantee', id: clientId },
      g.subject_id,
      {
        action: 'token_issued',
        grantId: g.grant_id,
        detail: `grant package ${packageId}`,
      },
      now,
    );
  }
  if (grants.every((g) => g.access_mode === 'single_use')) return { ...access, grant_ids: family.grant_ids };
  const refresh = newRefreshToken(family.family_id, endsAt, now);
  await deps.store.insertRefreshToken(refresh.record);
  return { ...access, grant_ids: family.grant_ids, refresh_token: refresh.token };
}

/**
 * An operator's package token over existing grants (`ppx mint package`), for tests and
 * conformance runs that need one without a browser. The grants must exist, be active and share
 * one grantee and one subject.
 */
export async function mintPackage(
  deps: Deps,
  grantIds: readonly string[],
  resource?: string,
): Promise<Result<TokenResponse & { package_id: string }>> {
  if (grantIds.length === 0) return fail('invalid_request', 'name at least one grant');
  if (new Set(grantIds).size !== grantIds.length) return fail('invalid_request', 'a grant is named twice');
  const now = deps.clock();
  const grants: GrantRecord[] = [];
  for (const id of grantIds) {
    const grant = await deps.store.getGrant(id);
    if (!grant) return fail('not_found', `there is no grant ${id}`);
    if (grantStatusAt(grant, now) !== 'active') return fail('invalid_request', `grant ${id} is not active`);
    grants.push(grant);
  }
  const [first] = grants;
  if (grants.some((g) => g.grantee_id !== first!.grantee_id || g.subject_id !== first!.subject_id)) {
    return fail('invalid_request', 'the grants of a package share one grantee and one subject');
  }
  const packageId = `pkg_${randomToken(16)}`;
  const tokens = await issuePackageFamily(deps, grants, first!.grantee_id, packageId, resource);
  return ok({ ...tokens, package_id: packageId });
}
