import { z } from 'zod';
import { DateTime, ppxId, Uri } from './vocabulary.ts';

/** An evidence reference (SPEC §5.4, evidence-ref.schema.json). */
export const EvidenceRef = z.strictObject({
  evidence_id: ppxId('evidence'),
  kind: z.string().min(1),
  timestamp: DateTime,
  visibility: z.enum(['public', 'grantee_only', 'provider_only']),
  summary: z.string().optional(),
  uri: Uri.optional(),
});
export type EvidenceRef = z.infer<typeof EvidenceRef>;
