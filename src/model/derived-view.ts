import { z } from 'zod';
import { DateTime, ppxId } from './vocabulary.ts';

/** A derived view (SPEC §4.7, §5.5, derived-view.schema.json). */
export const DerivedView = z.strictObject({
  view_id: ppxId('view'),
  view_kind: z.string().min(1),
  subject_id: z.string().min(1),
  grantee_id: z.string().min(1),
  created_at: DateTime,
  expires_at: DateTime,
  signals: z.record(z.string(), z.number()).optional(),
  warnings: z.array(z.string()).optional(),
  explanations: z.array(z.string()).optional(),
  basis: z.array(z.string()).optional(),
});
export type DerivedView = z.infer<typeof DerivedView>;
