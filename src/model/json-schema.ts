import { z } from 'zod';
import { Claim } from './claim.ts';
import { ConsentGrant } from './consent-grant.ts';
import { ContextModifier } from './context-modifier.ts';
import { DerivedView } from './derived-view.ts';
import { DiscoveryCard } from './discovery-card.ts';
import { EffectiveProfile } from './effective-profile.ts';
import { EvidenceRef } from './evidence-ref.ts';
import { ExtensionDescriptor } from './extension-descriptor.ts';
import { Profile } from './profile.ts';

/** The PPX objects, by name; each published schema is generated from the one definition. */
export const PPX_OBJECTS = {
  profile: Profile,
  claim: Claim,
  'context-modifier': ContextModifier,
  'evidence-ref': EvidenceRef,
  'consent-grant': ConsentGrant,
  'derived-view': DerivedView,
  'extension-descriptor': ExtensionDescriptor,
  'discovery-card': DiscoveryCard,
  'effective-profile': EffectiveProfile,
} as const;

export type PpxObjectName = keyof typeof PPX_OBJECTS;

/** The `$id` of a PPX object's official schema (the PPX repository's `schemas/core/`). */
export function officialSchemaId(name: PpxObjectName): string {
  return `https://ppx.dev/schemas/core/${name}.schema.json`;
}

/** JSON Schema 2020-12 for a model schema, as published to clients (OpenAPI 3.1, MCP tools). */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
