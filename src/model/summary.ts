import { z } from 'zod';
import { DateTime, PpxVersion, ProvenanceKind, ppxId } from './vocabulary.ts';

/** How sure the provider is, in words; the summary shows the band, never the number or the value. */
export const ConfidenceBand = z.enum(['low', 'medium', 'high']);
export type ConfidenceBand = z.infer<typeof ConfidenceBand>;

export function confidenceBand(confidence: number): ConfidenceBand {
  if (confidence >= 0.7) return 'high';
  if (confidence >= 0.4) return 'medium';
  return 'low';
}

/** Response of GET /v1/profile/summary: a redacted listing, no claim values. */
export const ProfileSummary = z.strictObject({
  ppx_version: PpxVersion,
  subject_id: z.string().min(1),
  provider_id: ppxId('provider'),
  generated_at: DateTime,
  namespaces: z.array(z.strictObject({ namespace: z.string(), claim_count: z.int().min(0) })),
  claims: z.array(
    z.strictObject({
      claim_id: ppxId('claim'),
      namespace: z.string(),
      key: z.string(),
      type: z.string(),
      provenance: ProvenanceKind,
      /** True only for `user_stated`: every surface must tell stated from the rest (SPEC §4.3). */
      stated: z.boolean(),
      confidence_band: ConfidenceBand,
      review_status: z.string().optional(),
    }),
  ),
  grant: z.looseObject({ grant_id: z.string() }).optional(),
});
export type ProfileSummary = z.infer<typeof ProfileSummary>;
