import { z } from 'zod';
import { ProvenanceKind, ppxId } from './vocabulary.ts';

/** A context modifier (SPEC §5.3, context-modifier.schema.json). */
export const ContextModifier = z.strictObject({
  modifier_id: ppxId('modifier'),
  namespace: z.string().min(1),
  key: z.string().min(1),
  effect_type: z.enum(['weight_adjustment', 'override', 'veto', 'suggest']),
  targets: z.array(z.string()).optional(),
  condition: z.record(z.string(), z.unknown()),
  effect: z.strictObject({
    increase: z.array(z.string()).optional(),
    decrease: z.array(z.string()).optional(),
    override: z.record(z.string(), z.unknown()).optional(),
  }),
  confidence: z.number().min(0).max(1),
  source: z.strictObject({ kind: ProvenanceKind, origin: z.string().optional() }),
});
export type ContextModifier = z.infer<typeof ContextModifier>;

/** The context a caller resolves a profile under: dimension -> value (SPEC §5.3, §9). */
export const ResolutionContext = z.record(
  z.string().regex(/^[a-z][a-z0-9_]*$/, 'context dimensions are snake_case names'),
  z.union([z.string().max(200), z.number(), z.boolean()]),
);
export type ResolutionContext = z.infer<typeof ResolutionContext>;
