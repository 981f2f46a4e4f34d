import type { VerifiedToken } from '../../auth/tokens.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import { recordAudit } from '../audit/audit-log.ts';
import { authenticate } from '../callers/caller.ts';
import { childId } from '../child-ids.ts';
import { readPresented } from '../consent/refresh.ts';
import { revokeGrantEverywhere } from '../consent/revocation.ts';
import type { Deps } from '../deps.ts';
import { resourceUrl, resourceUrls } from '../tokens/resources.ts';
import { inTransaction } from '../transaction.ts';
import { scopeOf } from './metadata.ts';

// Token introspection (RFC 7662) and revocation (RFC 7009) over the same records the bearer
// check reads: a grant token is only as alive as its grant is right now (WIRE-NOTES §3).

/** Who asks: a confidential client (about its own tokens) or a subject (about tokens of its grants). */
export type Introspector =
  | { readonly kind: 'client'; readonly client: ClientRecord }
  | { readonly kind: 'subject'; readonly subjectId: string };

/**
 * RFC 7662 §2.1 with a bearer token: a subject may introspect the tokens of its own grants; a
 * grant token may not introspect anything.
 */
export async function subjectIntrospector(deps: Deps, bearer: string): Promise<Result<Introspector>> {
  const caller = await authenticate(deps, bearer);
  if (!caller.ok) return caller;
  if (caller.value.kind !== 'subject') return fail('access_denied', 'a grant token cannot introspect tokens');
  return ok({ kind: 'subject', subjectId: caller.value.subjectId });
}

type Found = {
  /** The grants the token covers: one, or every child of a grant package. */
  readonly grants: readonly GrantRecord[];
  /** Set for a grant-package token (WIRE-NOTES §4). */
  readonly packageId?: string | undefined;
  readonly clientId: string;
  readonly audience: string;
  readonly iat: number;
  readonly exp: number;
  readonly tokenType: 'access_token' | 'refresh_token';
  /** Whether the token itself (not its grant) is still usable: current, family active, unexpired. */
  readonly usable: boolean;
  /**
   * RFC 9449 §6: the thumbprint of the DPoP key the token is bound to: an access token's signed
   * `cnf.jkt`, a refresh token's family's `dpop_jkt` (a public client's bound family).
   */
  readonly jkt?: string | undefined;
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
  const now = deps.clock();
  const first = found.grants[0]!;
  const statuses = found.grants.map((g) => grantStatusAt(g, now));
  // A package token is active while one child is; each child's status is reported (WIRE-NOTES §4).
  const active = found.usable && statuses.includes('active');
  const kind =
    found.packageId !== undefined
      ? {
          pdpp_token_kind: 'grant_package',
          pdpp_grant_status: Object.fromEntries(
            found.grants.map((g, i) => [childId(g.grant_id), statuses[i]]),
          ),
        }
      : { pdpp_token_kind: 'grant', pdpp_grant_status: statuses[0] };
  if (!active) return { active: false, ...kind };
  const sub =
    who.kind === 'client' ? deps.pairwise.subject(first.subject_id, found.clientId) : first.subject_id;
  return {
    active: true,
    client_id: found.clientId,
    sub,
    aud: found.audience,
    iss: deps.provider.baseUrl,
    exp: found.exp,
    iat: found.iat,
    scope: scopeOf([...new Set(found.grants.flatMap((g) => g.allowed_operations))]),
    // RFC 9449 §6.2: a bound access token is of type DPoP, and its key is named in cnf.jkt.
    token_type:
      found.tokenType === 'refresh_token' ? 'refresh_token' : found.jkt !== undefined ? 'DPoP' : 'Bearer',
    ...(found.jkt !== undefined ? { cnf: { jkt: found.jkt } } : {}),
    ...(found.packageId !== undefined
      ? { package_id: found.packageId, grant_ids: found.grants.map((g) => childId(g.grant_id)) }
      : { grant_id: first.grant_id }),
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
  await endGrants(deps, client, found);
}

/**
 * The package disconnect endpoint (WIRE-NOTES §4, RFC 7009 shape): a package token, access or
 * refresh, ends every child of its package at once. Any other token is refused, so a client
 * cannot end a single grant here by mistake; unknown tokens change nothing (RFC 7009 §2.2).
 */
export async function disconnectPackage(
  deps: Deps,
  client: ClientRecord,
  token: string,
): Promise<'disconnected' | 'not_a_package'> {
  const found = await find(deps, token);
  if (!found || found.clientId !== client.client_id) return 'disconnected';
  if (found.packageId === undefined) return 'not_a_package';
  await endGrants(deps, client, found);
  return 'disconnected';
}

/** Every active grant of the token ends, with its families and audit events, in one commit. */
async function endGrants(deps: Deps, client: ClientRecord, found: Found): Promise<void> {
  const now = deps.clock();
  const active = found.grants.filter((grant) => grantStatusAt(grant, now) === 'active');
  if (active.length === 0) return;
  await inTransaction(deps, async (tx) => {
    for (const grant of active) {
      await revokeGrantEverywhere(tx, grant.grant_id, now, 'client_revoked');
      await recordAudit(
        tx,
        { kind: 'grantee', id: client.client_id },
        grant.subject_id,
        {
          action: 'revoke',
          grantId: grant.grant_id,
          detail: `the client revoked its ${found.tokenType} (RFC 7009); the grant ended`,
        },
        now,
      );
    }
  });
}

async function find(deps: Deps, token: string): Promise<Found | undefined> {
  if (token === '' || token.length > 4096) return undefined;
  if (token.split('.').length === 3) return findAccess(deps, token);
  const presented = await readPresented(deps, token);
  if (!presented) return undefined;
  const { token: refresh, family } = presented;
  const grants = await grantsOf(deps, family.grant_ids);
  if (grants.length === 0) return undefined;
  const now = deps.clock().getTime();
  return {
    grants,
    packageId: family.package_id,
    clientId: family.client_id,
    audience: family.resource ?? resourceUrl(deps.provider, 'api'),
    iat: Math.floor(Date.parse(refresh.issued_at) / 1000),
    exp: Math.floor(Date.parse(refresh.expires_at) / 1000),
    tokenType: 'refresh_token',
    jkt: family.dpop_jkt,
    usable:
      refresh.status === 'current' && family.status === 'active' && Date.parse(refresh.expires_at) > now,
  };
}

/** An access token is verified for any resource this server issues for. */
async function findAccess(deps: Deps, token: string): Promise<Found | undefined> {
  const r = await deps.tokens.verify(token, deps.clock(), resourceUrls(deps.provider));
  const verified: VerifiedToken | undefined = r.ok ? r.value : undefined;
  const principal = verified?.principal;
  if (!verified || !principal || principal.kind === 'subject') return undefined;
  const ids = principal.kind === 'grant' ? [principal.grantId] : principal.grantIds;
  const grants = await grantsOf(deps, ids);
  if (grants.length !== ids.length || grants.some((g) => g.grantee_id !== principal.clientId))
    return undefined;
  return {
    grants,
    packageId: principal.kind === 'package' ? principal.packageId : undefined,
    clientId: principal.clientId,
    audience: verified.audience,
    iat: verified.issuedAt,
    exp: verified.expiresAt,
    tokenType: 'access_token',
    jkt: verified.jkt,
    usable: true,
  };
}

function visibleTo(who: Introspector, found: Found): boolean {
  return who.kind === 'client'
    ? who.client.client_id === found.clientId
    : found.grants.every((g) => g.subject_id === who.subjectId);
}

async function grantsOf(deps: Deps, ids: readonly string[]): Promise<GrantRecord[]> {
  const grants = await Promise.all(ids.map((id) => deps.store.getGrant(id)));
  return grants.filter((g): g is GrantRecord => g !== undefined);
}
