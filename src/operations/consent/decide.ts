import { z } from 'zod';
import { randomToken, sha256 } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRequestDraft, GrantRequestRecord, OAuthRequestFacts } from '../../model/grant-request.ts';
import { CrossDomainTransfer, DateTime, WritebackPolicy } from '../../model/vocabulary.ts';
import { narrowDraft } from '../../policy/narrowing.ts';
import { recordAudit } from '../audit/audit-log.ts';
import type { Caller } from '../callers/caller.ts';
import { announce } from '../changes.ts';
import type { Deps, TxDeps } from '../deps.ts';
import { createGrant, type GrantDraft } from '../grants/consent-grants.ts';
import { authorizationResponse } from '../oauth/redirect.ts';
import { inTransaction } from '../transaction.ts';
import { freshSignInFor } from './fresh-approval.ts';
import { receiptOfApproval, receiptOfRejection } from './receipts.ts';
import { decidedUrl } from './request.ts';

const Names = z.array(z.string().min(1).max(200)).max(100);

/** The subject's narrowing of a request (WIRE-NOTES §2.2): every field may only shrink. */
export const NarrowInput = z.strictObject({
  purposes: Names.optional(),
  allowed_domains: Names.optional(),
  allowed_namespaces: Names.optional(),
  allowed_claim_keys: Names.optional(),
  allowed_operations: Names.optional(),
  cross_domain_transfer: CrossDomainTransfer.optional(),
  writeback_policy: WritebackPolicy.optional(),
  expires_at: DateTime.optional(),
});

export const DecisionInput = z.strictObject({
  grant_request_id: z.string().min(1).max(200),
  narrow: NarrowInput.optional(),
});
export type DecisionInput = z.infer<typeof DecisionInput>;

/** What a decision returns: the request as now stored, without its secrets. */
export interface DecisionResult {
  readonly grant_request_id: string;
  readonly status: 'approved' | 'rejected';
  readonly grant_id?: string;
  readonly redirect_to: string;
}

/**
 * The subject approves a pending request, possibly narrowed: one transaction moves it from
 * pending to approved and creates the grant, so a request is approved at most once and never
 * leaves an orphan grant. Only the subject the request names may decide; a grantee never can.
 */
export async function approveGrantRequest(
  deps: Deps,
  caller: Caller,
  input: DecisionInput,
): Promise<Result<DecisionResult>> {
  const found = await pendingRequestFor(deps, caller, input.grant_request_id);
  if (!found.ok) return found;
  const request = found.value;
  if (request.package) return partOfPackage();
  const now = deps.clock();
  const draft = narrowDraft(request.draft, input.narrow ?? {}, now);
  if (!draft.ok) return draft;
  const fresh = await freshSignInFor(deps, caller, [draft.value]);
  if (!fresh.ok) return fresh;

  // An OAuth request is answered with an authorization code (RFC 6749 §4.1.2), whose hash is
  // stored with the approval; a consent-v2 request is exchanged with its request token instead.
  const code = request.oauth ? authorizationCode(request.grant_request_id) : undefined;
  return inTransaction(
    deps,
    async (tx): Promise<Result<DecisionResult>> => {
      const oauth = request.oauth && code ? { ...request.oauth, code_hash: sha256(code) } : undefined;
      const grantId = await approveWithin(tx, request, draft.value, now, oauth);
      if (grantId === undefined) return fail('conflict', 'this request has already been decided');
      await announce(
        tx,
        request.subject_id,
        'consent_decided',
        { grant_request_ids: [request.grant_request_id], grant_ids: [grantId] },
        [grantId],
      );
      return ok({
        grant_request_id: request.grant_request_id,
        status: 'approved',
        grant_id: grantId,
        redirect_to: redirectTo(deps, request, 'approve', code),
      });
    },
    { subject: request.subject_id },
  ).catch((e: unknown) => {
    if (e instanceof DecisionFailed)
      return fail('invalid_request', `the grant could not be created: ${e.message}`);
    throw e;
  });
}

/**
 * Inside a transaction: moves a request from pending to approved with its (narrowed) draft and
 * creates the grant. Returns the grant id, or undefined when the request was no longer pending.
 * Throws DecisionFailed when the grant cannot be created, which rolls the approval back.
 */
export async function approveWithin(
  tx: TxDeps,
  request: GrantRequestRecord,
  d: GrantRequestDraft,
  now: Date,
  oauth: OAuthRequestFacts | undefined,
): Promise<string | undefined> {
  const approved = await tx.store.transitionGrantRequest(request.grant_request_id, 'pending', {
    status: 'approved',
    draft: d,
    decided_at: now.toISOString(),
    ...(oauth ? { oauth } : {}),
  });
  if (!approved) return undefined;
  const grant = await createGrant(
    tx,
    {
      subject_id: request.subject_id,
      client_id: request.client_id,
      purposes: d.purposes as GrantDraft['purposes'],
      allowed_domains: [...d.allowed_domains],
      allowed_namespaces: [...d.allowed_namespaces],
      ...(d.allowed_claim_keys ? { allowed_claim_keys: [...d.allowed_claim_keys] } : {}),
      allowed_operations: d.allowed_operations as GrantDraft['allowed_operations'],
      cross_domain_transfer: d.cross_domain_transfer as GrantDraft['cross_domain_transfer'],
      writeback_policy: d.writeback_policy as GrantDraft['writeback_policy'],
      expires_at: d.expires_at,
      access_mode: d.access_mode,
    },
    'subject',
  );
  if (!grant.ok) throw new DecisionFailed(grant.error.description);
  // The request as the app asked (what the person was shown), not the narrowed draft just stored.
  await receiptOfApproval(tx, request, grant.value, now);
  await tx.store.transitionGrantRequest(request.grant_request_id, 'approved', {
    grant_id: grant.value.grant_id,
  });
  return grant.value.grant_id;
}

/** The subject declines a pending request; the client's exchange will then fail. */
export async function rejectGrantRequest(
  deps: Deps,
  caller: Caller,
  input: { grant_request_id: string },
): Promise<Result<DecisionResult>> {
  const found = await pendingRequestFor(deps, caller, input.grant_request_id);
  if (!found.ok) return found;
  if (found.value.package) return partOfPackage();
  const now = deps.clock();
  // The rejection and its audit event commit together.
  const rejected = await inTransaction(
    deps,
    async (tx) => {
      const done = await tx.store.transitionGrantRequest(input.grant_request_id, 'pending', {
        status: 'rejected',
        decided_at: now.toISOString(),
      });
      if (!done) return undefined;
      await receiptOfRejection(tx, done, now);
      await announce(tx, done.subject_id, 'consent_decided', { grant_request_ids: [done.grant_request_id] });
      await recordAudit(
        tx,
        { kind: 'subject', id: done.subject_id },
        done.subject_id,
        {
          action: 'consent_rejected',
          detail: `consent request ${done.grant_request_id} of ${done.client_id} rejected`,
        },
        now,
      );
      return done;
    },
    { subject: found.value.subject_id },
  );
  if (!rejected) return fail('conflict', 'this request has already been decided');
  return ok({
    grant_request_id: rejected.grant_request_id,
    status: 'rejected',
    redirect_to: redirectTo(deps, rejected, 'reject'),
  });
}

/**
 * The request a subject may decide on. A grant token is refused outright (a grantee must never
 * approve its own access, WIRE-NOTES §2.2); another subject's request reads as not found.
 */
export async function pendingRequestFor(
  deps: Deps,
  caller: Caller,
  grantRequestId: string,
): Promise<Result<GrantRequestRecord>> {
  if (caller.kind !== 'subject') {
    return fail('access_denied', 'only the subject can decide on a consent request; a grant token cannot');
  }
  const request = await deps.store.getGrantRequest(grantRequestId);
  if (!request || request.subject_id !== caller.subjectId) {
    return fail('not_found', 'there is no consent request with this id for you');
  }
  if (request.status !== 'pending') return fail('conflict', 'this request has already been decided');
  if (Date.parse(request.expires_at) <= deps.clock().getTime()) {
    return fail('conflict', 'this request has expired; the client must ask again');
  }
  return ok(request);
}

/**
 * Where the browser goes after a decision. consent-v2: `?grant_request_id=…&decision=…`
 * (WIRE-NOTES §2.2). OAuth: `?code=…&state=…&iss=…` or `?error=access_denied&state=…&iss=…`
 * (RFC 6749 §4.1.2, RFC 9207). A back-channel client (no redirect URI, WIRE-NOTES §2.1): the
 * provider's own page; the client learns the outcome at the exchange.
 */
function redirectTo(
  deps: Deps,
  request: GrantRequestRecord,
  decision: 'approve' | 'reject',
  code?: string,
): string {
  if (request.redirect_uri === undefined) return decidedUrl(deps, request.grant_request_id);
  const url = new URL(request.redirect_uri);
  if (!request.oauth) {
    url.searchParams.set('grant_request_id', request.grant_request_id);
    url.searchParams.set('decision', decision);
    return url.href;
  }
  return authorizationResponse(
    deps,
    request.redirect_uri,
    request.oauth.state,
    decision === 'approve' && code !== undefined ? { code } : { error: 'access_denied' },
  );
}

/** An authorization code: the request (or package) it answers, then a 256-bit secret (only its hash is kept). */
export function authorizationCode(grantRequestId: string): string {
  return `${grantRequestId}.${randomToken()}`;
}

/** Package children are decided together (package-decision.ts), never one by one. */
function partOfPackage() {
  return fail(
    'invalid_request',
    'this request is one element of a grant package; decide the package as a whole',
  );
}

/** The grant of an approval could not be created; the approval is rolled back. */
export class DecisionFailed extends Error {}
