import { z } from 'zod';
import {
  CrossDomainTransfer,
  DateTime,
  GrantStatus,
  Operation,
  Purpose,
  ppxId,
  Redisclosure,
  WritebackPolicy,
} from './vocabulary.ts';

/** A consent grant as it is published (SPEC §6.1, consent-grant.schema.json). */
export const ConsentGrant = z.strictObject({
  grant_id: ppxId('grant'),
  subject_id: z.string().min(1),
  grantee_id: z.string().min(1),
  status: GrantStatus,
  granted_at: DateTime,
  expires_at: DateTime.optional(),
  revoked_at: DateTime.optional(),
  purposes: z.array(Purpose).min(1),
  allowed_domains: z.array(z.string()).min(1),
  allowed_namespaces: z.array(z.string()).min(1),
  allowed_claim_keys: z.array(z.string()).optional(),
  allowed_operations: z.array(Operation).min(1),
  cross_domain_transfer: CrossDomainTransfer,
  writeback_policy: WritebackPolicy,
  redisclosure: Redisclosure.optional(),
  audit: z
    .strictObject({ log_access: z.boolean().optional(), notify_on_writeback: z.boolean().optional() })
    .optional(),
});
export type ConsentGrant = z.infer<typeof ConsentGrant>;

/** How a grant may be used over time (WIRE-NOTES §4): one-time grants end with their first token. */
export const AccessMode = z.enum(['continuous', 'single_use']);
export type AccessMode = z.infer<typeof AccessMode>;
