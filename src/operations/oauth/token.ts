import { verifyS256 } from '../../auth/pkce.ts';
import { safeEqual, sha256 } from '../../auth/secrets.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { recordAudit } from '../audit/audit-log.ts';
import { childId } from '../child-ids.ts';
import { readPresented, rotateRefreshToken } from '../consent/refresh.ts';
import { revokeGrantEverywhere } from '../consent/revocation.ts';
import { issueFamily, markExchanged, type TokenResponse } from '../consent/tokens.ts';
import type { Deps } from '../deps.ts';
import { bindingFor, codeKeyCheck } from '../tokens/dpop-proof.ts';
import { resourceUrl } from '../tokens/resources.ts';
import { inTransaction } from '../transaction.ts';
import { DETAIL_TYPE, scopeOf } from './metadata.ts';
import { exchangePackageCode } from './package-token.ts';
import { sameRedirect } from './redirect.ts';

/** Package ids (and so package codes) start with this; request ids with `gr_`. */
export const PACKAGE_PREFIX = 'pkg_';

// The token endpoint's two grants (RFC 6749 §4.1.3 and §6), over the consent flow's records.

/** RFC 6749 §5.1, plus the PPX grant and its RFC 9396 §7 authorization_details. */
export interface OAuthTokenResponse extends TokenResponse {
  readonly scope: string;
  readonly authorization_details: readonly Record<string, unknown>[];
}

export interface CodeExchange {
  readonly code?: string | undefined;
  readonly redirect_uri?: string | undefined;
  readonly code_verifier?: string | undefined;
  readonly resource?: string | undefined;
  /** The key of the request's DPoP proof, when it sent a valid one (RFC 9449 §5). */
  readonly dpop?: { readonly jkt: string } | undefined;
}

/** RFC 6749 §5.2: every problem with the code, verifier or redirect is the same answer. */
function invalidGrant() {
  return fail('invalid_grant', 'the authorization code or refresh token is not valid for this client');
}

/**
 * RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.6) and RFC 8707 §2.2. The code names its request
 * (`<grant_request_id>.<secret>`); its hash, the client, the redirect_uri, the verifier, the
 * request's status and age and the resource must all match. approved → exchanged is a
 * compare-and-set, so a code works once. A code presented again after it worked is treated as
 * stolen (RFC 6749 §4.1.2: "SHOULD revoke … all tokens previously issued based on that code"):
 * the grant and its refresh family are revoked.
 */
export async function exchangeCode(
  deps: Deps,
  client: ClientRecord,
  input: CodeExchange,
): Promise<Result<OAuthTokenResponse>> {
  const now = deps.clock();
  const { code, code_verifier: verifier } = input;
  const binding = bindingFor(client, input.dpop);
  if (!binding.ok) return binding;
  if (code === undefined || verifier === undefined || code.length > 500) return invalidGrant();
  const id = code.slice(0, Math.max(0, code.lastIndexOf('.')));
  // A package's code names the package, not one request (WIRE-NOTES §4).
  if (id.startsWith(PACKAGE_PREFIX)) return exchangePackageCode(deps, client, input, id);
  const request = id === '' ? undefined : await deps.store.getGrantRequest(id);
  const oauth = request?.oauth;
  if (!request || !oauth?.code_hash || !safeEqual(sha256(code), oauth.code_hash)) return invalidGrant();
  if (request.client_id !== client.client_id) return invalidGrant();
  if (request.status === 'exchanged' && request.grant_id !== undefined) {
    const grantId = request.grant_id;
    await inTransaction(
      deps,
      async (tx) => {
        await revokeGrantEverywhere(tx, grantId, now, 'token_reuse');
        await recordAudit(
          tx,
          { kind: 'grantee', id: client.client_id },
          request.subject_id,
          {
            action: 'revoke',
            grantId,
            outcome: 'denied',
            detail: 'an authorization code was presented again after its exchange; the grant was revoked',
          },
          now,
        );
      },
      { subject: request.subject_id },
    );
    return invalidGrant();
  }
  // A wrong verifier, redirect_uri or resource does not spend the code: only the client that
  // holds the verifier can finish, and spending it would let whoever intercepted a code cancel
  // the person's consent (docs/oauth.md, "Codes").
  if (!sameRedirect(input.redirect_uri, request)) return invalidGrant();
  if (!verifyS256(verifier, request.code_challenge)) return invalidGrant();
  if (input.resource !== undefined && input.resource !== oauth.resource) return invalidGrant();
  const keyed = codeKeyCheck(oauth.dpop_jkt, input.dpop);
  if (!keyed.ok) return keyed;
  const grant = await markExchanged(deps, request, now);
  if (!grant) return invalidGrant();
  const tokens = await issueFamily(deps, [grant], client.client_id, {
    resource: oauth.resource,
    dpop: binding.value,
  });
  return ok(withGrantFacts(tokens, [grant]));
}

/**
 * RFC 6749 §6: refresh with rotation and reuse detection, exactly as consent-v2 does it
 * (consent/tokens.ts refreshGrantTokens), for the audience the family was issued for. A
 * `resource` other than that one is refused (RFC 8707 §2.2); a revoked grant is
 * `invalid_grant` here (RFC 6749 §5.2 has no 410), saying who ended the access.
 */
export async function refreshTokens(
  deps: Deps,
  client: ClientRecord,
  input: {
    refresh_token?: string | undefined;
    resource?: string | undefined;
    scope?: string | undefined;
    client_secret?: string | undefined;
    /** The key of the request's DPoP proof, when it sent a valid one (RFC 9449 §5). */
    dpop?: { readonly jkt: string } | undefined;
  },
): Promise<Result<OAuthTokenResponse>> {
  const binding = bindingFor(client, input.dpop);
  if (!binding.ok) return binding;
  if (input.refresh_token === undefined || input.refresh_token.length > 500) return invalidGrant();
  const presented = await readPresented(deps, input.refresh_token);
  if (!presented || presented.family.client_id !== client.client_id) return invalidGrant();
  const { family } = presented;
  const resource = family.resource ?? resourceUrl(deps.provider, 'api');
  if (input.resource !== undefined && input.resource !== resource) {
    return fail('invalid_target', 'a refresh token keeps the resource it was issued for');
  }
  // RFC 6749 §6: a refresh may not ask for a scope the grant was not given (checked before the
  // token rotates, so a refused refresh spends nothing). Asking for less is allowed and answered
  // with the grant's scope as it is (§3.3: the response's `scope` says what was issued): a token
  // is bound to its grant, which the person approved, not to the scope string.
  if (input.scope !== undefined) {
    const granted = new Set(
      (await Promise.all(family.grant_ids.map((id) => deps.store.getGrant(id))))
        .flatMap((g) => (g ? scopeOf(g.allowed_operations).split(' ') : []))
        .filter((x) => x !== ''),
    );
    const wider = input.scope.split(' ').filter((x) => x !== '' && !granted.has(x));
    if (wider.length > 0) {
      return fail('invalid_scope', `a refresh cannot widen the grant: ${wider.join(' ')} was not granted`);
    }
  }
  // The client is authenticated already: it goes along, and is not read again. The grants the
  // rotation read (and found active) describe the new tokens: not read a second time either.
  const refreshed = await rotateRefreshToken(
    deps,
    {
      client_id: client.client_id,
      refresh_token: input.refresh_token,
      ...(input.client_secret !== undefined ? { client_secret: input.client_secret } : {}),
    },
    { ...presented, client },
    input.dpop,
  );
  // RFC 6749 §5.2 has no 410: an ended access is invalid_grant, in the words that say who ended it.
  if (!refreshed.ok && refreshed.error.code === 'grant_gone') {
    return fail('invalid_grant', refreshed.error.description);
  }
  if (!refreshed.ok) return refreshed;
  const { tokens, grants } = refreshed.value;
  if (grants.length === 0) return invalidGrant();
  return ok(withGrantFacts(tokens, grants));
}

/**
 * The scope and RFC 9396 §7 authorization_details of the grants as approved (maybe narrowed):
 * one element per grant, carrying the client's detail_id for a package child.
 */
export function withGrantFacts(
  tokens: TokenResponse,
  grants: readonly GrantRecord[],
  detailIds: ReadonlyMap<string, string> = new Map(),
): OAuthTokenResponse {
  return {
    ...tokens,
    // A package names its children by child id (WIRE-NOTES §4, child-ids.ts); the PPX grant id
    // stays in each ppx_grant authorization detail below.
    ...(tokens.grant_ids !== undefined ? { grant_ids: tokens.grant_ids.map(childId) } : {}),
    scope: scopeOf([...new Set(grants.flatMap((g) => g.allowed_operations))]),
    authorization_details: grants.map((grant) => ({
      type: DETAIL_TYPE,
      ...(detailIds.has(grant.grant_id) ? { detail_id: detailIds.get(grant.grant_id) } : {}),
      grant_id: grant.grant_id,
      purposes: grant.purposes,
      allowed_domains: grant.allowed_domains,
      allowed_namespaces: grant.allowed_namespaces,
      ...(grant.allowed_claim_keys ? { allowed_claim_keys: grant.allowed_claim_keys } : {}),
      allowed_operations: grant.allowed_operations,
      cross_domain_transfer: grant.cross_domain_transfer,
      writeback_policy: grant.writeback_policy,
      access_mode: grant.access_mode,
      ...(grant.expires_at !== undefined ? { expires_at: grant.expires_at } : {}),
    })),
  };
}
