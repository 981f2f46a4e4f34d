import { z } from 'zod';
import { sha256 } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRequestRecord } from '../../model/grant-request.ts';
import { narrowDraft } from '../../policy/narrowing.ts';
import type { Caller } from '../callers/caller.ts';
import { announce } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { authorizationResponse } from '../oauth/redirect.ts';
import { inTransaction } from '../transaction.ts';
import {
  approveWithin,
  authorizationCode,
  DecisionFailed,
  NarrowInput,
  pendingRequestFor,
} from './decide.ts';
import { freshSignInFor } from './fresh-approval.ts';
import { receiptOfRejection } from './receipts.ts';
import { decidedUrl } from './request.ts';

// A grant package (WIRE-NOTES §4): one OAuth authorization with several authorization_details
// is one consent request per detail. The subject approves or declines each element on its own,
// on one page, in one transaction; one authorization code then answers the whole package.

export const PackageDecisionInput = z.strictObject({
  package_id: z.string().min(1).max(200),
  decisions: z
    .array(
      z.strictObject({
        grant_request_id: z.string().min(1).max(200),
        decision: z.enum(['approve', 'reject']),
        narrow: NarrowInput.optional(),
      }),
    )
    .min(1)
    .max(20),
});
export type PackageDecisionInput = z.infer<typeof PackageDecisionInput>;

export interface PackageDecisionResult {
  readonly package_id: string;
  /** One entry per element, in the client's order: the grant it produced, or none if declined. */
  readonly outcomes: readonly { detail_id: string; grant_request_id: string; grant_ids: readonly string[] }[];
  readonly redirect_to: string;
}

/** The pending children of a package the caller may decide, in detail order. */
export async function pendingPackageFor(
  deps: Deps,
  caller: Caller,
  packageId: string,
): Promise<Result<GrantRequestRecord[]>> {
  const members = await deps.store.listGrantRequestsByPackage(packageId);
  if (members.length === 0) return fail('not_found', 'there is no consent request with this id for you');
  for (const m of members) {
    const found = await pendingRequestFor(deps, caller, m.grant_request_id);
    if (!found.ok) return found;
  }
  return ok(members);
}

/**
 * Decides every element of a package at once: each approved element becomes its own grant
 * (narrowed as the subject chose), each declined one nothing. If any step fails, nothing is
 * decided. At least one element must be approved for the client to get a code; declining all
 * answers the client with access_denied.
 */
export async function decidePackage(
  deps: Deps,
  caller: Caller,
  input: PackageDecisionInput,
): Promise<Result<PackageDecisionResult>> {
  const found = await pendingPackageFor(deps, caller, input.package_id);
  if (!found.ok) return found;
  const members = found.value;
  const byId = new Map(input.decisions.map((d) => [d.grant_request_id, d]));
  if (
    byId.size !== input.decisions.length ||
    members.some((m) => !byId.has(m.grant_request_id)) ||
    byId.size !== members.length
  ) {
    return fail('invalid_request', 'decide every element of the package exactly once');
  }
  const now = deps.clock();
  const drafts = new Map<string, GrantRequestRecord['draft']>();
  for (const m of members) {
    const d = byId.get(m.grant_request_id)!;
    if (d.decision !== 'approve') continue;
    const narrowed = narrowDraft(m.draft, d.narrow ?? {}, now);
    if (!narrowed.ok)
      return fail(narrowed.error.code, `${m.package?.detail_id}: ${narrowed.error.description}`);
    drafts.set(m.grant_request_id, narrowed.value);
  }
  const fresh = await freshSignInFor(deps, caller, [...drafts.values()]);
  if (!fresh.ok) return fresh;
  // `pkg_…` names the package; the rest is the secret, as for one request's code.
  const code = drafts.size > 0 ? authorizationCode(input.package_id) : undefined;

  return inTransaction(deps, async (tx): Promise<Result<PackageDecisionResult>> => {
    const outcomes: { detail_id: string; grant_request_id: string; grant_ids: string[] }[] = [];
    for (const m of members) {
      const draft = drafts.get(m.grant_request_id);
      const detail_id = m.package?.detail_id ?? m.grant_request_id;
      if (draft === undefined) {
        const rejected = await tx.store.transitionGrantRequest(m.grant_request_id, 'pending', {
          status: 'rejected',
          decided_at: now.toISOString(),
        });
        if (!rejected) throw new DecisionFailed('this package has already been decided');
        await receiptOfRejection(tx, rejected, now);
        outcomes.push({ detail_id, grant_request_id: m.grant_request_id, grant_ids: [] });
        continue;
      }
      const oauth = m.oauth && code ? { ...m.oauth, code_hash: sha256(code) } : undefined;
      const grantId = await approveWithin(tx, m, draft, now, oauth);
      if (grantId === undefined) throw new DecisionFailed('this package has already been decided');
      outcomes.push({ detail_id, grant_request_id: m.grant_request_id, grant_ids: [grantId] });
    }
    const created = outcomes.flatMap((o) => o.grant_ids);
    await announce(
      tx,
      members[0]!.subject_id,
      'consent_decided',
      { grant_request_ids: members.map((m) => m.grant_request_id), grant_ids: created },
      created,
    );
    return ok({
      package_id: input.package_id,
      outcomes,
      redirect_to: packageRedirect(deps, members[0]!, code),
    });
  }).catch((e: unknown) => {
    if (e instanceof DecisionFailed) return fail('conflict', e.message);
    throw e;
  });
}

/**
 * The package's answer goes where its first element's redirect URI says, with its state. A
 * package always has one (only /oauth/authorize makes packages, and it requires one); without it
 * the page would end on the provider's own page, as a back-channel request does.
 */
function packageRedirect(deps: Deps, first: GrantRequestRecord, code: string | undefined): string {
  if (first.redirect_uri === undefined) return decidedUrl(deps, first.grant_request_id);
  return authorizationResponse(
    deps,
    first.redirect_uri,
    first.oauth?.state,
    code !== undefined ? { code } : { error: 'access_denied' },
  );
}
