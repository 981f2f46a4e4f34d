import { verifyS256 } from '../../auth/pkce.ts';
import { safeEqual, sha256 } from '../../auth/secrets.ts';
import type { ClientRecord } from '../../model/client.ts';
import { ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import { recordAudit } from '../audit/audit-log.ts';
import { childId } from '../child-ids.ts';
import { revokeGrantEverywhere } from '../consent/revocation.ts';
import { invalidGrant, issueFamily } from '../consent/tokens.ts';
import type { Deps } from '../deps.ts';
import { bindingFor, codeKeyCheck } from '../tokens/dpop-proof.ts';
import { inTransaction } from '../transaction.ts';
import { sameRedirect } from './redirect.ts';
import { type CodeExchange, type OAuthTokenResponse, withGrantFacts } from './token.ts';

/** What the first token response of a package adds (WIRE-NOTES §4). */
export interface PackageTokenResponse extends OAuthTokenResponse {
  readonly pdpp_detail_outcomes: readonly {
    detail_id: string;
    grant_ids: readonly string[];
    /** The element's signed consent receipt (docs/receipts.md), for an element that was granted. */
    consent_receipt?: string;
  }[];
}

/**
 * RFC 6749 §4.1.3 for a package code (`pkg_….<secret>`): the same checks as a single request's
 * code, over every child. All approved children move to exchanged in one transaction, so the
 * code works once; a replay revokes every grant the code bought. The response lists, per
 * detail_id, the grants it produced (none for a declined element).
 */
export async function exchangePackageCode(
  deps: Deps,
  client: ClientRecord,
  input: CodeExchange,
  packageId: string,
): Promise<Result<PackageTokenResponse>> {
  const now = deps.clock();
  const { code, code_verifier: verifier } = input;
  const binding = bindingFor(client, input.dpop);
  if (!binding.ok) return binding;
  if (code === undefined || verifier === undefined) return invalidGrant();
  const members = await deps.store.listGrantRequestsByPackage(packageId);
  const first = members[0];
  if (!first || members.some((m) => m.client_id !== client.client_id || !m.oauth)) return invalidGrant();
  const holders = members.filter(
    (m) => m.oauth?.code_hash !== undefined && safeEqual(sha256(code), m.oauth.code_hash),
  );
  if (holders.length === 0) return invalidGrant();
  if (holders.some((m) => m.status === 'exchanged')) {
    await inTransaction(deps, async (tx) => {
      for (const m of holders)
        if (m.grant_id !== undefined) await revokeGrantEverywhere(tx, m.grant_id, now, 'token_reuse');
      await recordAudit(
        tx,
        { kind: 'grantee', id: client.client_id },
        first.subject_id,
        {
          action: 'revoke',
          outcome: 'denied',
          detail: `a package code was presented again after its exchange; the grants of package ${packageId} were revoked`,
        },
        now,
      );
    });
    return invalidGrant();
  }
  if (!sameRedirect(input.redirect_uri, first)) return invalidGrant();
  if (!verifyS256(verifier, first.code_challenge)) return invalidGrant();
  const resource = first.oauth!.resource;
  if (input.resource !== undefined && input.resource !== resource) return invalidGrant();
  const keyed = codeKeyCheck(first.oauth!.dpop_jkt, input.dpop);
  if (!keyed.ok) return keyed;
  if (holders.some((m) => m.status !== 'approved' || m.grant_id === undefined)) return invalidGrant();
  if (Date.parse(first.expires_at) <= now.getTime()) return invalidGrant();

  const exchanged = await inTransaction(deps, async (tx) => {
    for (const m of holders) {
      if (!(await tx.store.transitionGrantRequest(m.grant_request_id, 'approved', { status: 'exchanged' }))) {
        throw new ExchangeLost();
      }
    }
    return true;
  }).catch((e: unknown) => {
    if (e instanceof ExchangeLost) return false;
    throw e;
  });
  if (!exchanged) return invalidGrant();

  const grants = (await Promise.all(holders.map((m) => deps.store.getGrant(m.grant_id!)))).filter(
    (g): g is GrantRecord => g !== undefined,
  );
  if (!grants.some((g) => grantStatusAt(g, now) === 'active')) return invalidGrant();
  const tokens = await issueFamily(deps, grants, client.client_id, {
    packageId,
    resource,
    dpop: binding.value,
  });
  const detailIds = new Map(holders.map((m) => [m.grant_id!, m.package?.detail_id ?? m.grant_request_id]));
  const outcomes = [];
  for (const m of members) {
    const granted = m.grant_id !== undefined && holders.includes(m) ? m.grant_id : undefined;
    // Each granted element's approval receipt goes with the package's first tokens, as a single
    // grant's does with its own (consent/tokens.ts#issueFamily).
    const receipt =
      granted === undefined
        ? undefined
        : await deps.store.findConsentReceipt(granted, ['approved', 'narrowed']);
    outcomes.push({
      detail_id: m.package?.detail_id ?? m.grant_request_id,
      grant_ids: granted === undefined ? [] : [childId(granted)],
      ...(receipt !== undefined ? { consent_receipt: receipt.jws } : {}),
    });
  }
  return ok({ ...withGrantFacts(tokens, grants, detailIds), pdpp_detail_outcomes: outcomes });
}

class ExchangeLost extends Error {}
