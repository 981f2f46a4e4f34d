import type { DiscoveryCard } from '../../model/discovery-card.ts';
import type { ExtensionDescriptor } from '../../model/extension-descriptor.ts';
import { SUPPORTED_EXTENSIONS, supportedNamespaces } from '../../model/extensions/index.ts';
import { PPX_VERSION, Purpose } from '../../model/vocabulary.ts';
import type { ProviderInfo } from '../deps.ts';
import { resourceMetadataUrl, resourceUrl } from '../tokens/resources.ts';

/**
 * The discovery card (SPEC §7). Capabilities and bindings are honest: only what this build
 * serves is advertised as supported.
 */
export function discoveryCard(provider: ProviderInfo): DiscoveryCard {
  const base = provider.baseUrl;
  return {
    ppx_version: PPX_VERSION,
    provider_id: provider.providerId,
    name: provider.name,
    base_url: base,
    capabilities: {
      profile_read: true,
      claim_query: true,
      consent_management: true,
      propose_update: true,
      export: true,
      delete: true,
      audit_log: true,
    },
    supported_namespaces: supportedNamespaces(),
    supported_purposes: [...Purpose.options],
    default_policies: { cross_domain_transfer: 'deny', writeback_policy: 'review_required' },
    // OAuth 2.1 authorization server (WIRE-NOTES §3, docs/oauth.md) beside plain bearer tokens.
    auth: {
      schemes: ['bearer', 'oauth2.1'],
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      consent_endpoint: `${base}/consent/{grant_request_id}`,
    },
    signing: {
      profile_signatures: false,
      grant_signatures: false,
      grant_jwks_uri: `${base}/.well-known/jwks.json`,
    },
    transport_bindings: {
      mcp: { supported: true, server_uri: resourceUrl(provider, 'mcp') },
      a2a: { supported: true, agent_card_uri: `${base}/.well-known/agent-card.json` },
      http_api: { supported: true, openapi_uri: `${base}/openapi.json` },
    },
    // The person's review stream (POST /v1/agui/review, docs/ag-ui.md); the card has no slot for
    // its URL (transport_bindings are closed), so it is documented rather than linked. A2UI: the
    // binding's archetypes (docs/a2ui.md), drawn by the web app and sent by the A2A surface.
    ui: { ag_ui_supported: true, a2ui_supported: true },
  };
}

export function listExtensions(): { extensions: ExtensionDescriptor[] } {
  return { extensions: [...SUPPORTED_EXTENSIONS] };
}

/**
 * MCP server metadata (`/.well-known/mcp.json`, SEP-1649): where the server is, how it is
 * reached, and where its OAuth protected resource metadata lives (RFC 9728).
 */
export function mcpServerMetadata(provider: ProviderInfo, version: string) {
  const base = provider.baseUrl;
  return {
    name: 'ppx-provider',
    title: provider.name,
    version,
    description: 'PPX preference profiles, shared by their owners under consent grants.',
    endpoint: resourceUrl(provider, 'mcp'),
    transport: { type: 'streamable-http', url: resourceUrl(provider, 'mcp') },
    protocol_versions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
    capabilities: { tools: { listChanged: false }, resources: {} },
    auth: {
      type: 'oauth2',
      required: true,
      protected_resource_metadata: resourceMetadataUrl(provider, 'mcp'),
      authorization_servers: [base],
    },
  };
}
