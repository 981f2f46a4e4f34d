import { z } from 'zod';
import { Claim } from './claim.ts';
import { ConsentGrant } from './consent-grant.ts';
import { ContextModifier } from './context-modifier.ts';
import { CrossDomainTransfer, DateTime, PpxVersion, ppxId, WritebackPolicy } from './vocabulary.ts';

export const DefaultPolicy = z.strictObject({
  cross_domain_transfer: CrossDomainTransfer.optional(),
  inference_writeback: WritebackPolicy.optional(),
  retention_days: z.int().min(0).optional(),
});
export type DefaultPolicy = z.infer<typeof DefaultPolicy>;

/** A stored profile document, as exported and imported (SPEC §5.1, profile.schema.json). */
export const Profile = z.strictObject({
  ppx_version: PpxVersion,
  profile_id: ppxId('profile'),
  subject_id: z.string().min(1),
  provider_id: ppxId('provider'),
  created_at: DateTime,
  updated_at: DateTime,
  default_policy: DefaultPolicy.optional(),
  claims: z.array(Claim).optional(),
  context_modifiers: z.array(ContextModifier).optional(),
  consent_grants: z.array(ConsentGrant).optional(),
  extensions: z.array(z.looseObject({ namespace: z.string(), version: z.string() })).optional(),
});
export type Profile = z.infer<typeof Profile>;
