import {
  type AgentCard,
  type AgentCardSignature,
  generateAgentCardSignature,
  type SecurityScheme,
} from '@a2a-js/sdk';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { FlattenedSign } from 'jose';
import type { Deps } from '../../operations/deps.ts';

// The agent card in the A2A 0.3 shape, for clients that speak 0.3 (issue 22 item 5). A 0.3 client
// reads the card's top-level `url` to find the endpoint; a card that carried it beside a 1.0
// signature would let anyone on the path change where the client sends its grant's token, and the
// card would still verify. So each version gets its own card, and each card's signatures cover
// everything its readers read:
//
// - one over what @a2a-js/sdk makes of this card (`parseLegacyAgentCard`, which turns `url` into
//   the 1.0 interface): the SDK's `verifyAgentCardSignature` checks that;
// - one over the 0.3 JSON itself (RFC 8785, without `signatures`, as A2A 0.3 signs a card), for
//   a verifier that canonicalizes the card as it was served.
//
// Built from the 1.0 card (card.ts), so the two versions say the same things.

/** The 0.3 card as served (A2A 0.3 `AgentCard`); plain JSON. */
export interface LegacyCard {
  readonly [member: string]: unknown;
  readonly url: string;
  readonly signatures?: readonly AgentCardSignature[];
}

/** The 0.3 spelling of the 1.0 card (unsigned): `url`, `preferredTransport`, `type`-tagged schemes. */
function legacyCardOf(card: AgentCard): LegacyCard {
  const endpoint = card.supportedInterfaces[0];
  if (endpoint === undefined) throw new Error('the agent card names no endpoint');
  const capabilities = card.capabilities;
  return {
    name: card.name,
    description: card.description,
    url: endpoint.url,
    preferredTransport: endpoint.protocolBinding,
    protocolVersion: '0.3',
    version: card.version,
    ...(card.provider
      ? { provider: { url: card.provider.url, organization: card.provider.organization } }
      : {}),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    capabilities: {
      streaming: capabilities?.streaming ?? false,
      pushNotifications: capabilities?.pushNotifications ?? false,
      extensions: (capabilities?.extensions ?? []).map((e) => ({
        uri: e.uri,
        description: e.description,
        required: e.required,
        ...(e.params !== undefined ? { params: e.params } : {}),
      })),
    },
    securitySchemes: Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => [name, legacyScheme(scheme)]),
    ),
    security: card.securityRequirements.map((r) =>
      Object.fromEntries(Object.entries(r.schemes).map(([name, scopes]) => [name, [...scopes.list]])),
    ),
    defaultInputModes: [...card.defaultInputModes],
    defaultOutputModes: [...card.defaultOutputModes],
    skills: card.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: [...s.tags],
      examples: [...s.examples],
      inputModes: [...s.inputModes],
      outputModes: [...s.outputModes],
    })),
  };
}

/** The schemes this provider uses (card.ts), in the 0.3 `type` spelling. */
function legacyScheme(scheme: SecurityScheme): Record<string, unknown> {
  const s = scheme.scheme;
  switch (s?.$case) {
    case 'httpAuthSecurityScheme':
      return {
        type: 'http',
        description: s.value.description,
        scheme: s.value.scheme,
        bearerFormat: s.value.bearerFormat,
      };
    case 'oauth2SecurityScheme': {
      const flow = s.value.flows?.flow;
      if (flow?.$case !== 'authorizationCode')
        throw new Error('the card names an OAuth flow 0.3 has no spelling for');
      return {
        type: 'oauth2',
        description: s.value.description,
        flows: {
          authorizationCode: {
            authorizationUrl: flow.value.authorizationUrl,
            tokenUrl: flow.value.tokenUrl,
            refreshUrl: flow.value.refreshUrl,
            scopes: { ...flow.value.scopes },
          },
        },
        oauth2MetadataUrl: s.value.oauth2MetadataUrl,
      };
    }
    default:
      throw new Error(`the card names a security scheme (${s?.$case}) the 0.3 card does not spell`);
  }
}

/** The 0.3 card with its two signatures (see above), signed with the provider's document key. */
export async function signedLegacyCard(deps: Deps, card: AgentCard): Promise<LegacyCard> {
  const signer = deps.tokens.documentSigner;
  const header = {
    alg: signer.alg,
    kid: signer.kid,
    typ: 'JOSE',
    jku: `${deps.provider.baseUrl}/.well-known/jwks.json`,
  };
  const legacy = legacyCardOf({ ...card, signatures: [] });
  // What the SDK reads this card as, signed the way it verifies it.
  const asRead = await generateAgentCardSignature(signer.privateKey, header)(parseLegacyAgentCard(legacy));
  // The 0.3 JSON as served, canonicalized: generateAgentCardSignature signs whatever it is given
  // through the 1.0 canonical form, so this one is a JWS over the RFC 8785 bytes made here.
  const asServed = await signCanonical(deps, header, canonicalJson(legacy));
  return { ...legacy, signatures: [...asRead.signatures, asServed] };
}

async function signCanonical(
  deps: Deps,
  header: Record<string, string>,
  payload: string,
): Promise<AgentCardSignature> {
  const jws = await new FlattenedSign(new TextEncoder().encode(payload))
    .setProtectedHeader(header)
    .sign(deps.tokens.documentSigner.privateKey);
  // A protected header is always set above, so jose always gives it back.
  return { protected: jws.protected ?? '', signature: jws.signature, header: undefined };
}

/**
 * RFC 8785 (JCS): strings and numbers as ECMAScript's JSON.stringify writes them, which is what
 * JCS prescribes, and object members sorted by their UTF-16 code units.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
