import { type AgentCard, generateAgentCardSignature } from '@a2a-js/sdk';
import type { Deps } from '../../operations/deps.ts';
import { authorizationServerMetadata } from '../../operations/oauth/metadata.ts';
import { resourceUrl } from '../../operations/tokens/resources.ts';
import { A2UI_CATALOGS, A2UI_EXTENSIONS } from './a2ui-parts.ts';
import { cardSkills } from './skills.ts';

// The agent card (WIRE-NOTES §6, bindings/a2a.md "Agent card"), in the A2A 1.0 shape as
// @a2a-js/sdk types it. Served as `AgentCard.toJSON(card)`, which the SDK's own client reads back
// with its security schemes intact (PITFALLS: the express handler's spelling is read as `{}`),
// and nothing beside it (a 0.3 client gets its own card, legacy-card.ts). Signed
// (A2A 1.0 detached JWS over the RFC 8785 canonical card) with the provider's token key, which
// its JWKS publishes: a client verifies it with `verifyAgentCardSignature`.

/**
 * The A2A version spoken, as the card and A2A-Version name it: Major.Minor. The product follows
 * A2A 1.0.1, whose §3.6 says a patch number is never written in a card, a request or a response
 * (docs/a2a.md, "A2A 1.0.1").
 */
export const A2A_PROTOCOL = '1.0';
const SCOPES: Record<string, string> = {
  'ppx:read': 'Read the preferences a grant covers',
  'ppx:propose_update': 'Suggest changes to the person’s profile (the person reviews them)',
};

function agentCard(deps: Deps, version: string): AgentCard {
  const base = deps.provider.baseUrl;
  const endpoint = resourceUrl(deps.provider, 'a2a');
  const oauth = authorizationServerMetadata(deps.provider);
  return {
    name: 'PPX Preference Agent',
    description:
      'Scoped preference views, derived views and proposals for one person, under the consent grant they gave your agent (PPX). It never shows what the grant does not cover, and never delegates a grant.',
    supportedInterfaces: [
      { url: endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL },
    ],
    provider: { url: base, organization: deps.provider.name },
    version,
    documentationUrl: `${base}/openapi.json`,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      // The A2UI extension, one entry per version (each its own URI), with the catalogs its
      // surfaces are drawn with (A2UI extension spec: `params.supportedCatalogIds`); no inline
      // catalogs are read.
      extensions: (['0.9', '0.8'] as const).map((v) => ({
        uri: A2UI_EXTENSIONS[v],
        description: `A claim result also carries the A2UI v${v} messages of its ClaimCards (data parts, application/json+a2ui)`,
        required: false,
        params: { supportedCatalogIds: [A2UI_CATALOGS[v]], acceptsInlineCatalogs: false },
      })),
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: `A token bound to one consent grant, for this agent (audience ${endpoint})`,
            scheme: 'Bearer',
            bearerFormat: 'JWT',
          },
        },
      },
      oauth2: {
        scheme: {
          $case: 'oauth2SecurityScheme',
          value: {
            description: `The person approves a grant on the provider’s consent page (OAuth 2.1, PKCE S256, resource ${endpoint})`,
            flows: {
              flow: {
                $case: 'authorizationCode',
                value: {
                  authorizationUrl: oauth.authorization_endpoint,
                  tokenUrl: oauth.token_endpoint,
                  refreshUrl: oauth.token_endpoint,
                  scopes: { ...SCOPES },
                  pkceRequired: true,
                },
              },
            },
            oauth2MetadataUrl: `${base}/.well-known/oauth-authorization-server`,
          },
        },
      },
    },
    securityRequirements: [
      { schemes: { bearer: { list: [] } } },
      { schemes: { oauth2: { list: Object.keys(SCOPES) } } },
    ],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: cardSkills(),
    signatures: [],
  };
}

/** The card with its signature (A2A 1.0 `signatures`), signed once per process. */
export async function signedCard(deps: Deps, version: string): Promise<AgentCard> {
  const signer = deps.tokens.documentSigner;
  const sign = generateAgentCardSignature(signer.privateKey, {
    alg: signer.alg,
    kid: signer.kid,
    typ: 'JOSE',
    jku: `${deps.provider.baseUrl}/.well-known/jwks.json`,
  });
  return sign(agentCard(deps, version));
}
