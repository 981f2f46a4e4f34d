import { z } from 'zod';
import { Claim } from './claim.ts';
import { DateTime, PpxVersion, ppxId } from './vocabulary.ts';

/** The grant echo block of a response carrying claim data (bindings/http.md). */
export const GrantEcho = z.strictObject({
  grant_id: z.string(),
  allowed_namespaces: z.array(z.string()),
  allowed_claim_keys: z.array(z.string()).optional(),
  allowed_domains: z.array(z.string()),
  purposes: z.array(z.string()),
  cross_domain_transfer: z.string(),
  writeback_policy: z.string(),
  expires_at: DateTime.optional(),
});
export type GrantEcho = z.infer<typeof GrantEcho>;

/** Response of /v1/profile/query and /v1/profile/effective (effective-profile.schema.json). */
export const EffectiveProfile = z.looseObject({
  ppx_version: PpxVersion,
  subject_id: z.string().min(1),
  provider_id: ppxId('provider'),
  generated_at: DateTime,
  claims: z.array(Claim),
  applied_modifiers: z.array(z.string()),
  profile_id: z.string().optional(),
  grant: GrantEcho.optional(),
  writeback: z.enum(['none', 'proposal_created', 'pending']).optional(),
});
export type EffectiveProfile = z.infer<typeof EffectiveProfile>;
