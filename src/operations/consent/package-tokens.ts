import { randomToken } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import type { Deps } from '../deps.ts';
import { issueFamily, type TokenResponse } from './tokens.ts';

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
  const tokens = await issueFamily(deps, grants, first!.grantee_id, { packageId, resource });
  return ok({ ...tokens, package_id: packageId });
}
