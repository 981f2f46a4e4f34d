import { sha256 } from '../../auth/secrets.ts';
import type { VerifiedToken } from '../../auth/tokens.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import type { ClientRecord, GrantRecord } from '../../store/store.ts';
import { recordAudit } from '../audit.ts';
import { revokeGrantEverywhere } from '../consent/revocation.ts';
import type { Deps } from '../deps.ts';
import { oauthResources, scopeOf } from './metadata.ts';

// Token introspection (RFC 7662) and revocation (RFC 7009) over the same records the bearer
// check reads: a grant token is only as alive as its grant is right now (WIRE-NOTES §3).

/** Who asks: a confidential client (about its own tokens) or a subject (about tokens of its grants). */
export type Introspector =
  | { readonly kind: 'client'; readonly client: ClientRecord }
  | { readonly kind: 'subject'; readonly subjectId: string };

type Found = {
  readonly grant: GrantRecord;
  readonly clientId: string;
  readonly audience: string;
  readonly iat: number;
  readonly exp: number;
  readonly tokenType: 'access_token' | 'refresh_token';
  /** Whether the token itself (not its grant) is still usable: current, family active, unexpired. */
  readonly usable: boolean;
};

/**
 * RFC 7662 §2.2. A token the caller may not know about reads `{active: false}`, like an unknown
 * one (§4). An inactive token of the caller's own says only why, in `pdpp_grant_status`.
 */
export async function introspect(
  deps: Deps,
  who: Introspector,
  token: string,
): Promise<Record<string, unknown>> {
  const found = await find(deps, token);
  if (!found || !visibleTo(who, found)) return { active: false };
  const status = grantStatusAt(found.grant, deps.clock());
  const active = found.usable && status === 'active';
  const kind = { pdpp_token_kind: 'grant', pdpp_grant_status: status };
  if (!active) return { active: false, ...kind };
  const sub =
    who.kind === 'client'
      ? deps.pairwise.subject(found.grant.subject_id, found.clientId)
      : found.grant.subject_id;
  return {
    active: true,
    client_id: found.clientId,
    sub,
    aud: found.audience,
    iss: deps.provider.baseUrl,
    exp: found.exp,
    iat: found.iat,
    scope: scopeOf(found.grant.allowed_operations),
    token_type: found.tokenType === 'access_token' ? 'Bearer' : 'refresh_token',
    grant_id: found.grant.grant_id,
    ...kind,
  };
}

/**
 * RFC 7009 §2.1. Either kind of token ends the grant it was issued under, with every refresh
 * family of it: the client is saying it is done, and since the bearer check re-reads the grant,
 * that also invalidates the access tokens at once (§2.1: "SHOULD also invalidate all access
 * tokens based on the same authorization grant"). Unknown, expired or other clients' tokens
 * change nothing; the answer is the same 200 either way (§2.2).
 */
export async function revokeToken(deps: Deps, client: ClientRecord, token: string): Promise<void> {
  const found = await find(deps, token);
  if (!found || found.clientId !== client.client_id) return;
  const now = deps.clock();
  if (grantStatusAt(found.grant, now) !== 'active') return;
  await revokeGrantEverywhere(deps, found.grant.grant_id, now);
  await recordAudit(
    deps,
    { kind: 'grantee', id: client.client_id },
    found.grant.subject_id,
    {
      action: 'revoke',
      grantId: found.grant.grant_id,
      detail: `the client revoked its ${found.tokenType} (RFC 7009); the grant ended`,
    },
    now,
  );
}

async function find(deps: Deps, token: string): Promise<Found | undefined> {
  if (token === '' || token.length > 4096) return undefined;
  if (token.split('.').length === 3) return findAccess(deps, token);
  const refresh = await deps.store.getRefreshToken(sha256(token));
  if (!refresh) return undefined;
  const family = await deps.store.getTokenFamily(refresh.family_id);
  const grant = family ? await deps.store.getGrant(family.grant_ids[0] ?? '') : undefined;
  if (!family || !grant) return undefined;
  const now = deps.clock().getTime();
  return {
    grant,
    clientId: family.client_id,
    audience: family.resource ?? oauthResources(deps.provider).api,
    iat: Math.floor(Date.parse(refresh.issued_at) / 1000),
    exp: Math.floor(Date.parse(refresh.expires_at) / 1000),
    tokenType: 'refresh_token',
    usable:
      refresh.status === 'current' && family.status === 'active' && Date.parse(refresh.expires_at) > now,
  };
}

/** An access token is verified for either resource this server issues for. */
async function findAccess(deps: Deps, token: string): Promise<Found | undefined> {
  const now = deps.clock();
  let verified: VerifiedToken | undefined;
  for (const audience of Object.values(oauthResources(deps.provider))) {
    const r = await deps.tokens.verify(token, now, audience);
    if (r.ok) verified = r.value;
  }
  if (verified?.principal.kind !== 'grant') return undefined;
  const grant = await deps.store.getGrant(verified.principal.grantId);
  if (!grant || grant.grantee_id !== verified.principal.clientId) return undefined;
  return {
    grant,
    clientId: verified.principal.clientId,
    audience: verified.audience,
    iat: verified.issuedAt,
    exp: verified.expiresAt,
    tokenType: 'access_token',
    usable: true,
  };
}

function visibleTo(who: Introspector, found: Found): boolean {
  return who.kind === 'client'
    ? who.client.client_id === found.clientId
    : who.subjectId === found.grant.subject_id;
}
