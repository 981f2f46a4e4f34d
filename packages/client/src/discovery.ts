import { bodyOf, type Fetch, send } from './http.ts';
import { fail, ok, type Result } from './result.ts';
import type { DiscoveryCard } from './types.ts';

/** RFC 8414 authorization server metadata: the fields this library reads. */
export interface OAuthMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly registration_endpoint?: string;
  readonly revocation_endpoint?: string;
  /** WIRE-NOTES §4: ends every child of a grant package (RFC 7009 shape). */
  readonly pdpp_package_disconnect_endpoint?: string;
  readonly introspection_endpoint?: string;
  readonly code_challenge_methods_supported?: readonly string[];
  readonly token_endpoint_auth_methods_supported?: readonly string[];
  readonly grant_types_supported?: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly client_id_metadata_document_supported?: boolean;
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly [field: string]: unknown;
}

/** What a provider says of itself: its card, and its OAuth metadata when it has an authorization server. */
export interface Provider {
  /** The provider's base URL, without a trailing slash: where /v1/… lives. */
  readonly baseUrl: string;
  readonly card: DiscoveryCard;
  readonly oauth?: OAuthMetadata;
  /** Whether the provider binds tokens to a DPoP key when asked (ES256 is what this library signs). */
  readonly dpop: boolean;
}

/**
 * Reads `/.well-known/ppx-card.json` and `/.well-known/oauth-authorization-server`. A provider
 * without OAuth metadata is still usable through consent-v2 (`oauth` is then undefined).
 */
export async function discover(baseUrl: string, fetcher: Fetch = fetch): Promise<Result<Provider>> {
  const base = baseUrl.replace(/\/+$/, '');
  const cardAnswer = await send(fetcher, `${base}/.well-known/ppx-card.json`, {
    headers: { accept: 'application/json' },
  });
  if (!cardAnswer.ok) return cardAnswer;
  const card = bodyOf<DiscoveryCard>(cardAnswer.value);
  if (!card.ok) return card;
  if (typeof card.value.ppx_version !== 'string' || typeof card.value.base_url !== 'string') {
    return fail('invalid_response', `${base}/.well-known/ppx-card.json is not a PPX discovery card`);
  }
  const providerBase = card.value.base_url.replace(/\/+$/, '');
  const metaAnswer = await send(fetcher, `${providerBase}/.well-known/oauth-authorization-server`, {
    headers: { accept: 'application/json' },
  });
  let oauth: OAuthMetadata | undefined;
  if (metaAnswer.ok && metaAnswer.value.status === 200) {
    const meta = metaAnswer.value.json as OAuthMetadata | undefined;
    if (typeof meta?.token_endpoint !== 'string' || typeof meta.authorization_endpoint !== 'string') {
      return fail(
        'invalid_response',
        'the OAuth authorization server metadata names no token or authorization endpoint',
      );
    }
    oauth = meta;
  }
  const dpop = oauth?.dpop_signing_alg_values_supported?.includes('ES256') ?? false;
  return ok({ baseUrl: providerBase, card: card.value, ...(oauth ? { oauth } : {}), dpop });
}
