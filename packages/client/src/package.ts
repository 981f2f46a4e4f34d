import type { PpxClient } from './client.ts';
import { authorizationUrl, codeFromReturn, codeRequest, type PendingAuthorization } from './oauth.ts';
import { fail, ok, type Result } from './result.ts';
import type { StoredTokens } from './token-store.ts';
import type { GrantRequest } from './types.ts';

// Grant packages (WIRE-NOTES §4): one OAuth authorization with several `ppx_grant` elements, one
// consent page where the person decides each element on its own, one package token over every
// child that was granted. A package token reads only where each call names its child: the
// provider's MCP endpoint (grant-package.ts), never the HTTP API.

/** One element of a package: what one grant would ask for, named by the app's `detail_id`. */
export type PackageElement = Pick<
  GrantRequest,
  'purposes' | 'allowed_domains' | 'allowed_namespaces' | 'allowed_operations'
> &
  Partial<
    Pick<GrantRequest, 'allowed_claim_keys' | 'cross_domain_transfer' | 'writeback_policy' | 'access_mode'>
  > & {
    /** The app's name for the element (`[A-Za-z0-9._~-]{1,100}`, unique in the package). */
    readonly detail_id: string;
    readonly duration_days?: number;
  };

export interface PackageRequest {
  readonly redirectUri: string;
  /** Two elements or more (one is an ordinary grant: `authorizationUrl`). */
  readonly elements: readonly PackageElement[];
  /** The tokens' audience; default: the provider's MCP endpoint, where a package is read. */
  readonly resource?: string;
}

/** What became of one element: the grant it produced (a child id), or none when the person declined it. */
export interface DetailOutcome {
  readonly detailId: string;
  readonly grantIds: readonly string[];
  /** The signed receipt of the person's approval of this element (a compact JWS). */
  readonly consentReceipt?: string;
}

export interface PackageTokens {
  /** The package's key in the token store (`package:<first child>`): give it to `GrantPackage`. */
  readonly key: string;
  readonly outcomes: readonly DetailOutcome[];
  readonly tokens: StoredTokens;
}

/** The authorization URL of a package: PKCE S256 and state, one `ppx_grant` detail per element. */
export async function packageAuthorizationUrl(
  client: PpxClient,
  request: PackageRequest,
): Promise<Result<PendingAuthorization>> {
  if (request.elements.length < 2) {
    return fail(
      'invalid_request',
      'a grant package has two elements or more; ask for one with authorizationUrl',
    );
  }
  const resource = request.resource ?? client.provider.card.transport_bindings?.mcp?.server_uri;
  if (resource === undefined) {
    return fail('not_found', 'this provider names no MCP endpoint, where a grant package is read');
  }
  return authorizationUrl(client, {
    redirectUri: request.redirectUri,
    authorizationDetails: request.elements.map((e) => ({ type: 'ppx_grant', ...e })),
    resource,
  });
}

/**
 * The browser's return exchanged for the package token, kept in the store under `key`, with each
 * element's outcome (only the first token answer of a package carries them).
 */
export async function exchangePackageCode(
  client: PpxClient,
  callback: string | URL,
  pending: PendingAuthorization,
): Promise<Result<PackageTokens>> {
  const code = codeFromReturn(client, callback, pending);
  if (!code.ok) return code;
  const r = await codeRequest(client, code.value, pending);
  if (!r.ok) return r;
  const outcomes = r.value.body['pdpp_detail_outcomes'];
  if (!Array.isArray(outcomes)) {
    return fail('invalid_response', 'the token answer is not a grant package (no pdpp_detail_outcomes)');
  }
  return ok({
    key: r.value.tokens.grantId,
    tokens: r.value.tokens,
    outcomes: (outcomes as { detail_id: string; grant_ids: string[]; consent_receipt?: string }[]).map(
      (o) => ({
        detailId: o.detail_id,
        grantIds: o.grant_ids,
        ...(o.consent_receipt !== undefined ? { consentReceipt: o.consent_receipt } : {}),
      }),
    ),
  });
}
