import { z } from 'zod';
import { verifyS256 } from '../../auth/pkce.ts';
import { chainToken } from '../../auth/refresh-chain.ts';
import { randomToken, safeEqual, sha256 } from '../../auth/secrets.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { GrantRequestRecord } from '../../model/grant-request.ts';
import type { RefreshChainRecord, TokenFamilyRecord } from '../../model/token-family.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import { recordAudit } from '../audit/audit-log.ts';
import { announce } from '../changes.ts';
import type { AnyDeps, Deps } from '../deps.ts';
import { bindingFor } from '../tokens/dpop-proof.ts';
import { issueGrantToken, issuePackageToken } from '../tokens/issue-tokens.ts';
import { inTransaction } from '../transaction.ts';

/** Refresh tokens live this long at most, and never past their grant's expiry. */
const REFRESH_TTL_SECONDS = 30 * 86_400;

export interface TokenResponse {
  readonly access_token: string;
  /** `DPoP` when the access token is bound to the client's DPoP key (RFC 9449 §5). */
  readonly token_type: 'Bearer' | 'DPoP';
  readonly expires_in: number;
  /** The grant, for a token over one grant. */
  readonly grant_id?: string;
  /** The children, for a grant-package token (WIRE-NOTES §4). */
  readonly grant_ids?: readonly string[];
  readonly refresh_token?: string;
  /**
   * The signed receipt of the person's approval (docs/receipts.md), a compact JWS: with the
   * first tokens of a grant only, never on a refresh or with a package token.
   */
  readonly consent_receipt?: string;
}

const Secret = z.string().min(1).max(500);

/** POST /v1/consent/token (WIRE-NOTES §2.3). */
export const ExchangeInput = z.strictObject({
  grant_request_id: Secret,
  request_token: Secret,
  code_verifier: Secret,
  client_id: Secret,
  client_secret: Secret.optional(),
});

/** POST /v1/consent/refresh (WIRE-NOTES §2.4). */
export const RefreshInput = z.strictObject({
  client_id: Secret,
  refresh_token: Secret,
  client_secret: Secret.optional(),
});

/** Every failed exchange or refresh looks the same, so a caller cannot learn which check failed. */
export function invalidGrant() {
  return fail('invalid_grant', 'the grant request or refresh token is not valid for this client');
}

/**
 * Exchanges an approved request for tokens. Each check failing gives the same `invalid_grant`:
 * the id alone, another client, a wrong request token or verifier, an undecided, rejected,
 * expired or already exchanged request. The approved → exchanged transition is a
 * compare-and-set, so a request is exchanged at most once even under concurrent attempts.
 * With the key of a DPoP proof (RFC 9449 §5, checked by the HTTP pipeline) the tokens are bound
 * to it as at the OAuth token endpoint; a client registered with `dpop_bound_access_tokens` must
 * send one (refused before the request is spent).
 */
export async function exchangeGrantRequest(
  deps: Deps,
  input: z.infer<typeof ExchangeInput>,
  proof?: { readonly jkt: string },
): Promise<Result<TokenResponse>> {
  const now = deps.clock();
  const request = await deps.store.getGrantRequest(input.grant_request_id);
  if (!request || request.client_id !== input.client_id) return invalidGrant();
  const client = await deps.store.getClient(input.client_id);
  if (!client || !clientAuthenticated(client, input.client_secret)) return invalidGrant();
  const binding = bindingFor(client, proof);
  if (!binding.ok) return binding;
  if (!safeEqual(sha256(input.request_token), request.request_token_hash)) return invalidGrant();
  if (!verifyS256(input.code_verifier, request.code_challenge)) return invalidGrant();
  const grant = await markExchanged(deps, request, now);
  if (!grant) return invalidGrant();
  return ok(await issueFamily(deps, [grant], client.client_id, { dpop: binding.value }));
}

/**
 * The last step of every exchange (consent-v2 and OAuth): the request must be approved and
 * fresh; approved → exchanged is a compare-and-set, so it succeeds once; the grant must still be
 * active. Returns the grant, or undefined for the caller's uniform `invalid_grant`.
 */
export async function markExchanged(
  deps: AnyDeps,
  request: GrantRequestRecord,
  now: Date,
): Promise<GrantRecord | undefined> {
  if (request.status !== 'approved' || request.grant_id === undefined) return undefined;
  if (Date.parse(request.expires_at) <= now.getTime()) return undefined;
  const exchanged = await inTransaction(
    deps,
    (tx) => tx.store.transitionGrantRequest(request.grant_request_id, 'approved', { status: 'exchanged' }),
    { subject: request.subject_id },
  );
  if (!exchanged) return undefined;
  const grant = await deps.store.getGrant(request.grant_id);
  return grant && grantStatusAt(grant, now) === 'active' ? grant : undefined;
}

/**
 * Starts a refresh family and issues its first tokens: over one grant (a grant token), or over
 * the children of a grant package (one package token, WIRE-NOTES §4). Single-use grants are
 * consumed by this issuance: readable until this token expires, and never again; when every
 * grant is single-use there is no refresh token. The access token is signed first; the family,
 * the shortened expiries, the audit events and the refresh token then commit together.
 */
export async function issueFamily(
  deps: AnyDeps,
  grants: readonly GrantRecord[],
  clientId: string,
  options: {
    /** Set for a grant package. */
    readonly packageId?: string | undefined;
    /** The resource the family's access tokens are for (RFC 8707); the HTTP API when absent. */
    readonly resource?: string | undefined;
    /**
     * RFC 9449 §5: the DPoP key the client proved at the token endpoint. Its access tokens are
     * bound to it, and so are its refresh tokens when the client is public (`bindRefresh`).
     */
    readonly dpop?: { readonly jkt: string; readonly bindRefresh: boolean } | undefined;
  } = {},
): Promise<TokenResponse> {
  const { packageId, resource, dpop } = options;
  const first = grants[0];
  if (!first) throw new Error('a token family needs at least one grant');
  const now = deps.clock();
  const family: TokenFamilyRecord = {
    family_id: `fam_${randomToken(16)}`,
    client_id: clientId,
    subject_id: first.subject_id,
    grant_ids: grants.map((g) => g.grant_id),
    ...(packageId !== undefined ? { package_id: packageId } : {}),
    ...(resource !== undefined ? { resource } : {}),
    ...(dpop?.bindRefresh ? { dpop_jkt: dpop.jkt } : {}),
    status: 'active',
    created_at: now.toISOString(),
  };
  const endsAt = latestExpiry(grants);
  const ttl = accessTtl(deps, endsAt, now);
  const access =
    packageId !== undefined
      ? await issuePackageToken(
          deps,
          { packageId, grantIds: family.grant_ids, clientId },
          ttl,
          resource,
          dpop?.jkt,
        )
      : await issueGrantToken(deps, first, ttl, resource, dpop?.jkt);
  // Shortening a single-use grant's own expiry makes every surface enforce its end.
  const tokenEnd = new Date(now.getTime() + access.expires_in * 1000).toISOString();
  const named = packageId !== undefined ? { grant_ids: family.grant_ids } : { grant_id: first.grant_id };
  const refresh = grants.every((g) => g.access_mode === 'single_use')
    ? undefined
    : newRefreshChain(family.family_id, endsAt, now);
  await inTransaction(
    deps,
    async (tx) => {
      await tx.store.insertTokenFamily(family);
      for (const g of grants) {
        if (g.access_mode === 'single_use') {
          const shortened = await tx.store.shortenGrantExpiry(g.grant_id, tokenEnd);
          if (shortened && shortened.expires_at !== g.expires_at) {
            await announce(
              tx,
              g.subject_id,
              'grant_narrowed',
              { grant_ids: [g.grant_id], family_ids: [family.family_id] },
              [g.grant_id],
            );
          }
        }
        await recordAudit(
          tx,
          { kind: 'grantee', id: clientId },
          g.subject_id,
          {
            action: 'token_issued',
            grantId: g.grant_id,
            ...(packageId !== undefined ? { detail: `grant package ${packageId}` } : {}),
          },
          now,
        );
      }
      if (refresh !== undefined) await tx.store.insertRefreshChain(refresh.record);
    },
    { subject: family.subject_id },
  );
  // The family is new: these are the grant's first tokens, and its approval's receipt goes with them.
  const receipt =
    packageId === undefined
      ? await deps.store.findConsentReceipt(first.grant_id, ['approved', 'narrowed'])
      : undefined;
  return {
    ...access,
    ...named,
    ...(refresh !== undefined ? { refresh_token: refresh.token } : {}),
    ...(receipt !== undefined ? { consent_receipt: receipt.jws } : {}),
  };
}

/** When a family's grants end: the latest expiry, or undefined when one of them never expires. */
export function latestExpiry(grants: readonly GrantRecord[]): string | undefined {
  let latest = 0;
  for (const g of grants) {
    if (g.expires_at === undefined) return undefined;
    latest = Math.max(latest, Date.parse(g.expires_at));
  }
  return new Date(latest).toISOString();
}

/** When a refresh token issued at `now` expires: REFRESH_TTL_SECONDS later, and never past `endsAt`. */
export function refreshExpiry(endsAt: string | undefined, now: Date): string {
  const limit = now.getTime() + REFRESH_TTL_SECONDS * 1000;
  const grantEnd = endsAt !== undefined ? Date.parse(endsAt) : limit;
  return new Date(Math.min(limit, grantEnd)).toISOString();
}

/**
 * A family's refresh chain, new (auth/refresh-chain.ts): its seed drawn, its first token (of
 * generation 0) issued at `now`.
 */
export function newRefreshChain(familyId: string, endsAt: string | undefined, now: Date) {
  const record: RefreshChainRecord = {
    family_id: familyId,
    seed: randomToken(),
    generation: 0,
    issued_at: now.toISOString(),
    expires_at: refreshExpiry(endsAt, now),
  };
  return { token: chainToken(record.seed, familyId, 0), record };
}

/** An access token never outlives its grant. */
export function accessTtl(deps: AnyDeps, endsAt: string | undefined, now: Date): number {
  const ttl = deps.provider.tokenTtlSeconds;
  if (endsAt === undefined) return ttl;
  const left = Math.floor((Date.parse(endsAt) - now.getTime()) / 1000);
  return Math.max(1, Math.min(ttl, left));
}

/** Public clients prove nothing here (PKCE does that); confidential ones must send their secret. */
export function clientAuthenticated(client: ClientRecord, secret: string | undefined): boolean {
  if (client.kind === 'public') return true;
  return (
    secret !== undefined && client.secret_hash !== undefined && safeEqual(sha256(secret), client.secret_hash)
  );
}
