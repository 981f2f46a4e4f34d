import { z } from 'zod';
import { verifyS256 } from '../../auth/pkce.ts';
import { randomToken, safeEqual, sha256 } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import type { ClientRecord, GrantRecord, TokenFamilyRecord } from '../../store/store.ts';
import { recordAudit } from '../audit.ts';
import type { Deps } from '../deps.ts';
import { issueGrantToken } from '../issue-tokens.ts';
import { revokeGrantEverywhere } from './revocation.ts';

/** Refresh tokens live this long at most, and never past their grant's expiry. */
export const REFRESH_TTL_SECONDS = 30 * 86_400;

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly grant_id: string;
  readonly refresh_token?: string;
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
function invalidGrant() {
  return fail('invalid_grant', 'the grant request or refresh token is not valid for this client');
}

/**
 * Exchanges an approved request for tokens. Each check failing gives the same `invalid_grant`:
 * the id alone, another client, a wrong request token or verifier, an undecided, rejected,
 * expired or already exchanged request. The approved → exchanged transition is a
 * compare-and-set, so a request is exchanged at most once even under concurrent attempts.
 */
export async function exchangeGrantRequest(
  deps: Deps,
  input: z.infer<typeof ExchangeInput>,
): Promise<Result<TokenResponse>> {
  const now = deps.clock();
  const request = await deps.store.getGrantRequest(input.grant_request_id);
  if (!request || request.client_id !== input.client_id) return invalidGrant();
  const client = await deps.store.getClient(input.client_id);
  if (!client || !clientAuthenticated(client, input.client_secret)) return invalidGrant();
  if (!safeEqual(sha256(input.request_token), request.request_token_hash)) return invalidGrant();
  if (!verifyS256(input.code_verifier, request.code_challenge)) return invalidGrant();
  if (request.status !== 'approved' || request.grant_id === undefined) return invalidGrant();
  if (Date.parse(request.expires_at) <= now.getTime()) return invalidGrant();
  const exchanged = await deps.store.transitionGrantRequest(request.grant_request_id, 'approved', {
    status: 'exchanged',
  });
  if (!exchanged) return invalidGrant();
  const grant = await deps.store.getGrant(request.grant_id);
  if (!grant || grantStatusAt(grant, now) !== 'active') return invalidGrant();
  return ok(await issueFamily(deps, grant, client.client_id));
}

/**
 * Starts a refresh family for a grant and issues its first tokens. A single-use grant gets no
 * refresh token: its one access token is all the access it gives (WIRE-NOTES §4).
 */
export async function issueFamily(
  deps: Deps,
  grant: GrantRecord,
  clientId: string,
  /** The resource the family's access tokens are for (RFC 8707); the HTTP API when absent. */
  resource?: string,
): Promise<TokenResponse> {
  const now = deps.clock();
  const family: TokenFamilyRecord = {
    family_id: `fam_${randomToken(16)}`,
    client_id: clientId,
    subject_id: grant.subject_id,
    grant_ids: [grant.grant_id],
    ...(resource !== undefined ? { resource } : {}),
    status: 'active',
    created_at: now.toISOString(),
  };
  await deps.store.insertTokenFamily(family);
  const access = await issueGrantToken(deps, grant, accessTtl(deps, grant, now), resource);
  await recordAudit(
    deps,
    { kind: 'grantee', id: clientId },
    grant.subject_id,
    {
      action: 'token_issued',
      grantId: grant.grant_id,
    },
    now,
  );
  if (grant.access_mode === 'single_use') {
    // Consumed at its first token: readable until that token expires, and never again
    // (WIRE-NOTES §4). Shortening the grant's own expiry makes every surface enforce it.
    await deps.store.shortenGrantExpiry(
      grant.grant_id,
      new Date(now.getTime() + access.expires_in * 1000).toISOString(),
    );
    return { ...access, grant_id: grant.grant_id };
  }
  const refresh = newRefreshToken(family.family_id, grant, now);
  await deps.store.insertRefreshToken(refresh.record);
  return { ...access, grant_id: grant.grant_id, refresh_token: refresh.token };
}

/**
 * Rotates a refresh token (WIRE-NOTES §2.4). Presenting a token that was already rotated is
 * treated as theft: the whole family dies and the grant is revoked. A refresh under a revoked
 * grant is 410 Gone. Of two concurrent refreshes of one token exactly one wins (compare-and-set);
 * one that arrives after the other rotated the token cannot be told from a thief's replay and is
 * treated as one (RFC 9700 §4.14.2).
 */
export async function refreshGrantTokens(
  deps: Deps,
  input: z.infer<typeof RefreshInput>,
): Promise<Result<TokenResponse>> {
  const now = deps.clock();
  const hash = sha256(input.refresh_token);
  const token = await deps.store.getRefreshToken(hash);
  if (!token) return invalidGrant();
  const family = await deps.store.getTokenFamily(token.family_id);
  if (!family || family.client_id !== input.client_id) return invalidGrant();
  const client = await deps.store.getClient(input.client_id);
  if (!client || !clientAuthenticated(client, input.client_secret)) return invalidGrant();
  const grant = await deps.store.getGrant(family.grant_ids[0] ?? '');
  if (!grant) return invalidGrant();

  if (grantStatusAt(grant, now) === 'revoked') {
    return fail('grant_gone', 'the grant behind this refresh token was revoked; ask the subject again', {
      grantId: grant.grant_id,
    });
  }
  if (token.status === 'rotated') {
    await deps.store.revokeTokenFamily(family.family_id, now.toISOString());
    await revokeGrantEverywhere(deps, grant.grant_id, now);
    await recordAudit(
      deps,
      { kind: 'grantee', id: family.client_id },
      grant.subject_id,
      {
        action: 'refresh_reuse',
        grantId: grant.grant_id,
        outcome: 'denied',
        detail: 'a rotated refresh token was presented again; the token family and the grant were revoked',
      },
      now,
    );
    return invalidGrant();
  }
  if (family.status !== 'active' || Date.parse(token.expires_at) <= now.getTime()) return invalidGrant();
  if (grantStatusAt(grant, now) !== 'active') return invalidGrant();

  const next = newRefreshToken(family.family_id, grant, now);
  if (!(await deps.store.rotateRefreshToken(hash, next.record))) return invalidGrant();
  // A refreshed token keeps the audience the family was issued for.
  const access = await issueGrantToken(deps, grant, accessTtl(deps, grant, now), family.resource);
  await recordAudit(
    deps,
    { kind: 'grantee', id: family.client_id },
    grant.subject_id,
    {
      action: 'token_refreshed',
      grantId: grant.grant_id,
    },
    now,
  );
  return ok({ ...access, grant_id: grant.grant_id, refresh_token: next.token });
}

function newRefreshToken(familyId: string, grant: GrantRecord, now: Date) {
  const token = randomToken();
  const limit = now.getTime() + REFRESH_TTL_SECONDS * 1000;
  const grantEnd = grant.expires_at !== undefined ? Date.parse(grant.expires_at) : limit;
  return {
    token,
    record: {
      token_hash: sha256(token),
      family_id: familyId,
      status: 'current' as const,
      issued_at: now.toISOString(),
      expires_at: new Date(Math.min(limit, grantEnd)).toISOString(),
    },
  };
}

/** An access token never outlives its grant. */
function accessTtl(deps: Deps, grant: GrantRecord, now: Date): number {
  const ttl = deps.provider.tokenTtlSeconds;
  if (grant.expires_at === undefined) return ttl;
  const left = Math.floor((Date.parse(grant.expires_at) - now.getTime()) / 1000);
  return Math.max(1, Math.min(ttl, left));
}

/** Public clients prove nothing here (PKCE does that); confidential ones must send their secret. */
export function clientAuthenticated(client: ClientRecord, secret: string | undefined): boolean {
  if (client.kind === 'public') return true;
  return (
    secret !== undefined && client.secret_hash !== undefined && safeEqual(sha256(secret), client.secret_hash)
  );
}
