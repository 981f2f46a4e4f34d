import { IdentityMemo, share } from '../../cache/identity-memo.ts';
import type { AuditAction } from '../../model/audit-event.ts';
import { type Claim, namespaceOfKey, normalizeKey, qualifiedKey } from '../../model/claim.ts';
import type { ContextModifier } from '../../model/context-modifier.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { isSupportedNamespace } from '../../model/extensions/index.ts';
import type { ProfileRecord } from '../../model/profile-record.ts';
import type { AccessRequest, Scope } from '../../policy/scope.ts';
import { visibilityKey, visibleClaims } from '../../policy/visibility.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import type { Caller } from '../callers/caller.ts';
import { type CrossDomainReviewNotice, crossDomainTransfer } from '../cross-domain/transfer.ts';
import type { Deps } from '../deps.ts';
import { evaluateOrDeny } from '../grants/access-check.ts';
import { subjectProfile } from './subject-profile.ts';

/** The claims one request may see, with what it takes to present them. */
export interface VisibleProfile {
  readonly profile: ProfileRecord | undefined;
  /** The internal subject id (for audit); never sent to a grantee. */
  readonly subjectId: string;
  /** Shared between requests (never written to): the store's cached list, or a shared filter of it. */
  readonly claims: readonly Claim[];
  readonly modifiers: readonly ContextModifier[];
  /** The evaluated grant scope; undefined for the subject reading their own profile. */
  readonly scope: Scope | undefined;
  /** The cross-domain review this read depends on, if any (SPEC §13.2, docs/cross-domain.md). */
  readonly crossDomainReview?: CrossDomainReviewNotice;
}

/**
 * The one read path every surface goes through: evaluate the grant, load the profile, keep only
 * what the scope allows. A refusal is audited as a denial before it is returned.
 */
export async function loadVisibleProfile(
  deps: Deps,
  caller: Caller,
  request: AccessRequest,
  action: AuditAction,
): Promise<Result<VisibleProfile>> {
  const now = deps.clock();
  if (caller.kind === 'subject') {
    const checked = checkOwnerFilters(request);
    if (!checked.ok) return checked;
    const own = await subjectProfile(deps, caller.subjectId);
    if (!own.ok) return own;
    const content = await deps.store.getProfileContent(own.value.profile_id);
    const profile = content?.profile ?? own.value;
    const claims = content?.claims ?? [];
    const modifiers = content?.modifiers ?? [];
    return ok({
      profile,
      subjectId: caller.subjectId,
      claims: ownerFilter(claims, request),
      modifiers,
      scope: undefined,
    });
  }

  const grant = caller.grant;
  const scope = await evaluateOrDeny(deps, caller, request, action, now);
  if (!scope.ok) return scope;
  const content = await deps.store.getProfileContent(grant.profile_id);
  const profile = content?.profile;
  const claims = content?.claims ?? [];
  const modifiers = content?.modifiers ?? [];
  // Raw cross-domain claims never pass; under allow_with_review their mapped core traits may.
  const transfer = await crossDomainTransfer(deps, caller, scope.value, claims, now);
  const visible = visibleUnder(scope.value, claims);
  return ok({
    profile,
    subjectId: grant.subject_id,
    claims: transfer.mapped.length > 0 ? [...visible, ...transfer.mapped] : visible,
    modifiers,
    scope: scope.value,
    ...(transfer.notice ? { crossDomainReview: transfer.notice } : {}),
  });
}

/** Distinct scopes remembered per stored claim array. */
const MAX_SCOPES = 32;
const visibleByScope = new IdentityMemo<readonly Claim[], readonly Claim[]>(MAX_SCOPES);

/**
 * visibleClaims, shared between requests under the same scope while the stored claims are the
 * same array: being the same object lets resolution reuse its work
 * (resolve/shared-resolution.ts).
 */
function visibleUnder(scope: Scope, claims: readonly Claim[]): readonly Claim[] {
  const key = visibilityKey(scope);
  return (
    visibleByScope.get(claims, key) ?? visibleByScope.set(claims, key, share(visibleClaims(scope, claims)))
  );
}

/** The owner is not bound by a grant, but the request's own filters must still make sense. */
function checkOwnerFilters(request: AccessRequest): Result<true> {
  const namespaces = [...(request.namespaces ?? []), ...(request.keys ?? []).map(namespaceOfKey)];
  const unknown = namespaces.find((ns) => !isSupportedNamespace(ns));
  if (unknown !== undefined)
    return fail('unknown_namespace', `namespace "${unknown}" is not supported by this provider`);
  return ok(true);
}

function ownerFilter(claims: readonly Claim[], request: AccessRequest): readonly Claim[] {
  const namespaces = request.namespaces ? new Set(request.namespaces) : undefined;
  const keys = request.keys ? new Set(request.keys.map(normalizeKey)) : undefined;
  if (!namespaces && !keys) return claims;
  return claims.filter(
    (c) => (!namespaces || namespaces.has(c.namespace)) && (!keys || keys.has(qualifiedKey(c))),
  );
}

/** Audits a successful read of the claims that were actually returned. */
export async function auditRead(
  deps: Deps,
  caller: Caller,
  visible: VisibleProfile,
  action: AuditAction,
  claims: readonly Claim[],
) {
  await recordCallerAudit(
    deps,
    caller,
    visible.subjectId,
    { action, claimKeys: keysOf(claims) },
    deps.clock(),
  );
}

/**
 * The claim keys of a list of claims, once per list: the lists a read returns are shared between
 * the reads of one scope (visibleUnder), so each read's audit event names the same key list, and
 * the store recognises it without serializing it again (sqlite/audit-queries.ts).
 */
const keysByClaims = new WeakMap<readonly Claim[], readonly string[]>();
function keysOf(claims: readonly Claim[]): readonly string[] {
  let keys = keysByClaims.get(claims);
  if (keys === undefined) {
    keys = Object.freeze(claims.map(qualifiedKey));
    keysByClaims.set(claims, keys);
  }
  return keys;
}
