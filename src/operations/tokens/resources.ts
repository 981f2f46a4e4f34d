import type { ProviderInfo } from '../deps.ts';

// The protected resources (RFC 8707, RFC 9728) this provider issues tokens for: one entry per
// surface that takes grant tokens. A token's audience is exactly one of these URLs, and each
// surface verifies tokens against its own; adding a surface is one entry here.

export const RESOURCES = [
  // The PPX HTTP binding: its URL is the base URL itself (the issuer), so its metadata lives at
  // the root well-known path (RFC 9728 §3.1).
  { kind: 'api', path: '' },
  // Streamable HTTP MCP endpoint (WIRE-NOTES §5).
  { kind: 'mcp', path: '/mcp' },
  // The A2A preference agent's JSON-RPC endpoint (WIRE-NOTES §6).
  { kind: 'a2a', path: '/a2a' },
] as const;

export type ResourceKind = (typeof RESOURCES)[number]['kind'];

/** The resource of a token whose issuer names none: consent-v2 and the CLI mint for the HTTP API. */
export const DEFAULT_RESOURCE: ResourceKind = 'api';

/** WIRE-NOTES §3: an OAuth authorization request without `resource` (RFC 8707) is for MCP. */
export const OAUTH_DEFAULT_RESOURCE: ResourceKind = 'mcp';

/** The resource's URL: the `aud` of its tokens and the `resource` clients name (RFC 8707 §2). */
export function resourceUrl(provider: ProviderInfo, kind: ResourceKind): string {
  return provider.baseUrl + pathOf(kind);
}

/** Every resource URL, in the order of RESOURCES. */
export function resourceUrls(provider: ProviderInfo): string[] {
  return RESOURCES.map((r) => provider.baseUrl + r.path);
}

/** Which resource a URL names, or undefined when it is none of this provider's. */
export function resourceOfUrl(provider: ProviderInfo, url: string): ResourceKind | undefined {
  return RESOURCES.find((r) => provider.baseUrl + r.path === url)?.kind;
}

/** RFC 9728 §3: where a resource's protected resource metadata is published. */
export function resourceMetadataUrl(provider: ProviderInfo, kind: ResourceKind): string {
  return `${provider.baseUrl}/.well-known/oauth-protected-resource${pathOf(kind)}`;
}

function pathOf(kind: ResourceKind): string {
  return RESOURCES.find((r) => r.kind === kind)!.path;
}
