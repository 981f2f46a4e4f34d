import { z } from 'zod';
import { CrossDomainTransfer, PpxVersion, ppxId, Uri, WritebackPolicy } from './vocabulary.ts';

const Binding = <K extends string>(uriKey: K) =>
  z.strictObject({ supported: z.boolean().optional(), [uriKey]: Uri.optional() } as {
    supported: z.ZodOptional<z.ZodBoolean>;
  } & Record<K, z.ZodOptional<typeof Uri>>);

/** The discovery card served at /.well-known/ppx-card.json (SPEC §7, discovery-card.schema.json). */
export const DiscoveryCard = z.strictObject({
  ppx_version: PpxVersion,
  provider_id: ppxId('provider'),
  name: z.string().min(1),
  base_url: Uri,
  capabilities: z.strictObject({
    profile_read: z.boolean().optional(),
    claim_query: z.boolean().optional(),
    consent_management: z.boolean().optional(),
    propose_update: z.boolean().optional(),
    export: z.boolean().optional(),
    delete: z.boolean().optional(),
    audit_log: z.boolean().optional(),
  }),
  supported_namespaces: z.array(z.string()).min(1),
  supported_purposes: z.array(z.string()),
  default_policies: z.strictObject({
    cross_domain_transfer: CrossDomainTransfer.optional(),
    writeback_policy: WritebackPolicy.optional(),
  }),
  auth: z.strictObject({
    schemes: z.array(z.enum(['oauth2', 'oauth2.1', 'openid_connect', 'bearer'])).min(1),
    authorization_endpoint: Uri.optional(),
    token_endpoint: Uri.optional(),
    consent_endpoint: z.string().optional(),
  }),
  signing: z
    .strictObject({
      profile_signatures: z.boolean().optional(),
      grant_signatures: z.boolean().optional(),
      grant_jwks_uri: Uri.optional(),
    })
    .optional(),
  transport_bindings: z
    .strictObject({
      mcp: Binding('server_uri').optional(),
      a2a: Binding('agent_card_uri').optional(),
      http_api: Binding('openapi_uri').optional(),
    })
    .optional(),
  ui: z
    .strictObject({ ag_ui_supported: z.boolean().optional(), a2ui_supported: z.boolean().optional() })
    .optional(),
});
export type DiscoveryCard = z.infer<typeof DiscoveryCard>;
