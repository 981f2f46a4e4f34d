import { z } from 'zod';
import { ValueType } from './vocabulary.ts';

/** An extension descriptor (SPEC §8.2, extension-descriptor.schema.json). */
export const ExtensionDescriptor = z.strictObject({
  namespace: z.string().regex(/^[a-z][a-z0-9_]*$/),
  version: z.string().regex(/^[0-9]+\.[0-9]+(\.[0-9]+)?(-[A-Za-z0-9.-]+)?$/),
  title: z.string().min(1),
  description: z.string().optional(),
  keys: z
    .array(
      z.strictObject({
        key: z.string().regex(/^[a-z][a-z0-9_]*$/),
        value_type: ValueType,
        units: z.string().optional(),
        description: z.string().optional(),
        allowed_values: z.array(z.string()).optional(),
        provenance_guidance: z.string().optional(),
        confidence_guidance: z.string().optional(),
      }),
    )
    .min(1),
  privacy_guidance: z
    .strictObject({
      cross_domain_use: z.enum(['recommended', 'discouraged_without_review', 'forbidden']).optional(),
      high_impact: z.boolean().optional(),
      notes: z.string().optional(),
    })
    .optional(),
});
export type ExtensionDescriptor = z.infer<typeof ExtensionDescriptor>;
