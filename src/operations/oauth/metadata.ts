import { DPOP_ALGS } from '../../auth/dpop.ts';
import { supportedNamespaces } from '../../model/extensions/index.ts';
import type { Operation } from '../../model/vocabulary.ts';
import type { ProviderInfo } from '../deps.ts';
import { FRESHNESS_GRANULARITY } from '../reads/freshness.ts';
import { type ResourceKind, resourceUrl } from '../tokens/resources.ts';

// The authorization server's published facts: RFC 8414 (authorization server metadata) and
// RFC 9728 (protected resource metadata), WIRE-NOTES §3.

/** OAuth scopes and the PPX operation each one grants (docs/oauth.md). */
export const SCOPE_OPERATIONS: Readonly<Record<string, Operation>> = {
  'ppx:read': 'read',
  'ppx:query': 'query',
  'ppx:propose_update': 'propose_update',
  'ppx:confirm_update': 'confirm_update',
  'ppx:export': 'export',
};
const SUPPORTED_SCOPES = Object.keys(SCOPE_OPERATIONS);

/** RFC 6749 §3.3: the scope used when a request names neither scope nor authorization_details. */
export const DEFAULT_SCOPE = 'ppx:read ppx:query';

/** RFC 9396 §2: the one authorization_details type this server understands. */
export const DETAIL_TYPE = 'ppx_grant';

/** The scope string for a set of operations (RFC 6749 §3.3: space-delimited). */
export function scopeOf(operations: readonly string[]): string {
  return SUPPORTED_SCOPES.filter((s) => operations.includes(SCOPE_OPERATIONS[s]!)).join(' ');
}

/** Namespaces whose name is also a domain (every supported namespace except `core`). */
export function domainNamespaces(): string[] {
  return supportedNamespaces().filter((ns) => ns !== 'core');
}

/** RFC 8414 §2. `issuer` is exactly the base URL (no trailing slash), as RFC 9207 `iss` is. */
export function authorizationServerMetadata(provider: ProviderInfo) {
  const base = provider.baseUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    // WIRE-NOTES §4: ends every child of a grant package (RFC 7009 shape).
    pdpp_package_disconnect_endpoint: `${base}/oauth/package/disconnect`,
    introspection_endpoint: `${base}/oauth/introspect`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'bearer'],
    scopes_supported: SUPPORTED_SCOPES,
    authorization_details_types_supported: [DETAIL_TYPE],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    // RFC 9449 §5.1: the token endpoint binds tokens to a DPoP key proved with one of these.
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    service_documentation: `${base}/openapi.json`,
  };
}

/** RFC 9728 §2, for one resource; the MCP resource also declares its freshness granularity. */
export function protectedResourceMetadata(provider: ProviderInfo, kind: ResourceKind) {
  return {
    resource: resourceUrl(provider, kind),
    authorization_servers: [provider.baseUrl],
    bearer_methods_supported: ['header'],
    scopes_supported: SUPPORTED_SCOPES,
    resource_name: provider.name,
    // RFC 9728 §2 / RFC 9449 §5.1: DPoP-bound tokens are taken (with proofs of these algorithms); bearer too.
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    dpop_bound_access_tokens_required: false,
    ...(kind === 'mcp' ? { pdpp_freshness_granularity: FRESHNESS_GRANULARITY } : {}),
  };
}
