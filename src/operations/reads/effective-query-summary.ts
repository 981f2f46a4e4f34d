import { z } from 'zod';
import { SecondMemo, share } from '../../cache/identity-memo.ts';
import type { Claim } from '../../model/claim.ts';
import { ResolutionContext } from '../../model/context-modifier.ts';
import type { EffectiveProfile } from '../../model/effective-profile.ts';
import { ok, type Result } from '../../model/errors.ts';
import { confidenceBand, type ProfileSummary } from '../../model/summary.ts';
import { PPX_VERSION, ProvenanceKind, Purpose } from '../../model/vocabulary.ts';
import type { AccessRequest } from '../../policy/scope.ts';
import { resolveShared } from '../../resolve/shared-resolution.ts';
import { type Caller, subjectIdFor } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';
import { grantEcho } from '../grants/published-grant.ts';
import { auditRead, loadVisibleProfile, type VisibleProfile } from './visible-profile.ts';

const NameList = z.array(z.string().min(1).max(200)).max(100);

/** Narrowing filters a read may carry; they can only narrow the grant (SPEC §10 MUST NOT 1). */
const Narrowing = {
  requested_namespaces: NameList.optional(),
  requested_keys: NameList.optional(),
  requested_domain: z.string().min(1).max(100).optional(),
  purpose: Purpose.optional(),
};

export const EffectiveInput = z.strictObject({ ...Narrowing, context: ResolutionContext.optional() });
export type EffectiveInput = z.infer<typeof EffectiveInput>;

export const QueryInput = z.strictObject({
  ...Narrowing,
  context: ResolutionContext.optional(),
  provenance: z.array(ProvenanceKind).optional(),
  min_confidence: z.number().min(0).max(1).optional(),
});
export type QueryInput = z.infer<typeof QueryInput>;

function accessRequest(
  operation: 'read' | 'query',
  input: {
    requested_namespaces?: string[] | undefined;
    requested_keys?: string[] | undefined;
    requested_domain?: string | undefined;
    purpose?: Purpose | undefined;
  },
): AccessRequest {
  return {
    operation,
    // Reading everything in scope is more than a filtered query, so a `read` grant may query.
    ...(operation === 'query' ? { alsoPermittedBy: ['read'] as const } : {}),
    ...(input.purpose !== undefined ? { purpose: input.purpose } : {}),
    ...(input.requested_namespaces !== undefined ? { namespaces: input.requested_namespaces } : {}),
    ...(input.requested_keys !== undefined ? { keys: input.requested_keys } : {}),
    ...(input.requested_domain !== undefined ? { domain: input.requested_domain } : {}),
  };
}

/** get_effective_profile (SPEC §9): visible claims resolved under the supplied context. */
export async function getEffectiveProfile(
  deps: Deps,
  caller: Caller,
  input: EffectiveInput,
): Promise<Result<EffectiveProfile>> {
  const visible = await loadVisibleProfile(deps, caller, accessRequest('read', input), 'effective');
  if (!visible.ok) return visible;
  return ok(await resolveAndAudit(deps, caller, visible.value, input.context ?? {}, 'effective'));
}

/** query_claims (SPEC §9): a filtered read, answered as an effective-profile document. */
export async function queryClaims(
  deps: Deps,
  caller: Caller,
  input: QueryInput,
): Promise<Result<EffectiveProfile>> {
  const visible = await loadVisibleProfile(deps, caller, accessRequest('query', input), 'query');
  if (!visible.ok) return visible;
  const provenance = input.provenance ? new Set(input.provenance) : undefined;
  const min = input.min_confidence ?? 0;
  const keep =
    provenance || min > 0
      ? (c: Claim) => (!provenance || provenance.has(c.source.kind)) && c.confidence >= min
      : undefined;
  return ok(await resolveAndAudit(deps, caller, visible.value, input.context ?? {}, 'query', keep));
}

async function resolveAndAudit(
  deps: Deps,
  caller: Caller,
  visible: VisibleProfile,
  context: ResolutionContext,
  action: 'effective' | 'query',
  keep?: (c: Claim) => boolean,
): Promise<EffectiveProfile> {
  const now = deps.clock();
  const resolved = resolveShared({
    claims: visible.claims,
    modifiers: visible.modifiers,
    context,
    now,
  });
  // Unfiltered, the claims stay the shared array, so the document below can be shared too.
  const claims = keep ? resolved.claims.filter(keep) : resolved.claims;
  await auditRead(deps, caller, visible, action, claims);
  const generatedAt = wholeSecond(now);
  const members = {
    subject_id: subjectIdFor(deps, caller, visible.subjectId),
    // The stored profile id is a stable cross-grant identifier: only its owner sees it.
    ...(caller.kind === 'subject' && visible.profile ? { profile_id: visible.profile.profile_id } : {}),
    ...(visible.scope ? { grant: grantEcho(visible.scope) } : {}),
    ...(visible.crossDomainReview ? { cross_domain_review: visible.crossDomainReview } : {}),
  };
  const document = (): EffectiveProfile => ({
    ppx_version: PPX_VERSION,
    subject_id: members.subject_id,
    provider_id: deps.provider.providerId,
    generated_at: generatedAt.toISOString(),
    claims,
    applied_modifiers: resolved.applied_modifiers,
    ...(members.profile_id !== undefined ? { profile_id: members.profile_id } : {}),
    ...(members.grant !== undefined ? { grant: members.grant } : {}),
    ...(members.cross_domain_review !== undefined
      ? { cross_domain_review: members.cross_domain_review }
      : {}),
  });
  // A filtered query is its own list; only the shared resolution's documents are reused.
  if (claims !== resolved.claims) return document();
  const second = generatedAt.getTime();
  const key = JSON.stringify(members);
  return documents.get(second, claims, key) ?? documents.set(second, claims, key, share(document()));
}

/**
 * Within one second, the reads that resolve to the same shared claims for the same caller-facing
 * members get the same (share()d) document: its identity lets the surfaces reuse its JSON
 * (surfaces/shared/json-text.ts). `generated_at` has whole-second precision, so nothing else differs.
 */
const MAX_DOCUMENTS = 8;
const documents = new SecondMemo<readonly Claim[], EffectiveProfile>(MAX_DOCUMENTS);

/** `generated_at` is stated to the second (like HTTP's Date), so documents of one second are equal. */
function wholeSecond(now: Date): Date {
  return new Date(now.getTime() - (now.getTime() % 1000));
}

/** get_profile_summary (SPEC §9): which claims are visible, redacted to keys and bands. */
export async function getProfileSummary(deps: Deps, caller: Caller): Promise<Result<ProfileSummary>> {
  const visible = await loadVisibleProfile(deps, caller, { operation: 'read' }, 'summary');
  if (!visible.ok) return visible;
  const now = deps.clock();
  const { claims } = resolveShared({
    claims: visible.value.claims,
    modifiers: [],
    context: {},
    now,
  });
  await auditRead(deps, caller, visible.value, 'summary', claims);
  const counts = new Map<string, number>();
  for (const c of claims) counts.set(c.namespace, (counts.get(c.namespace) ?? 0) + 1);
  return ok({
    ppx_version: PPX_VERSION,
    subject_id: subjectIdFor(deps, caller, visible.value.subjectId),
    provider_id: deps.provider.providerId,
    generated_at: wholeSecond(now).toISOString(),
    namespaces: [...counts].map(([namespace, claim_count]) => ({ namespace, claim_count })),
    claims: claims.map((c) => ({
      claim_id: c.claim_id,
      namespace: c.namespace,
      key: c.key,
      type: c.type,
      provenance: c.source.kind,
      stated: c.source.kind === 'user_stated',
      confidence_band: confidenceBand(c.confidence),
      ...(c.review?.review_status !== undefined ? { review_status: c.review.review_status } : {}),
    })),
    ...(visible.value.scope ? { grant: grantEcho(visible.value.scope) } : {}),
  });
}
