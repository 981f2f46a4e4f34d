import { z } from 'zod';
import { ObjectMark } from './object-mark.ts';
import { DateTime, ppxId } from './vocabulary.ts';

/** What an audit entry records. The table is append-only: entries are never changed. */
export const AuditAction = z.enum([
  'read',
  'query',
  'effective',
  'summary',
  'export',
  'import',
  'list_grants',
  'revoke',
  'grant_created',
  'audit_read',
  'denied',
  'consent_rejected',
  'token_issued',
  'token_refreshed',
  'refresh_reuse',
  // A derived view computed from the listed keys (docs/derived-views.md).
  'derived_view',
  // Write-back (docs/writeback.md).
  'proposal_created',
  'proposal_applied',
  'proposal_confirmed',
  'proposal_rejected',
  'claim_confirmed',
  'claim_deleted',
  'profile_deleted',
  // The subject changed which keys are sensitive (docs/writeback.md); claim_keys lists the new set.
  'sensitive_keys_changed',
  // Cross-domain transfer reviews (docs/cross-domain.md).
  'cross_domain_review_requested',
  'cross_domain_approved',
  'cross_domain_rejected',
]);
export type AuditAction = z.infer<typeof AuditAction>;

export const AuditEvent = z.strictObject({
  event_id: ppxId('event'),
  at: DateTime,
  subject_id: z.string().min(1),
  actor: z.strictObject({ kind: z.enum(['subject', 'grantee', 'operator']), id: z.string() }),
  grant_id: z.string().optional(),
  action: AuditAction,
  claim_keys: z.array(z.string()),
  outcome: z.enum(['ok', 'denied']),
  detail: z.string().optional(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

/**
 * Events built around an id minted for them (operations/audit/audit-log.ts#recordAudit): a UUIDv7
 * with 74 random bits, so no log holds that id before the event's first append. A store may skip
 * looking the id up then (the SQLite journal's look-up was a read transaction per read, ~30 µs:
 * docs/benchmarks.md); an id from anywhere else, or the same event appended again, is looked up.
 */
const minted = new ObjectMark('minted audit event');

/** Marks `event` as built around a freshly minted id; returns it. */
export function mintedEvent(event: AuditEvent): AuditEvent {
  return minted.set(event, true);
}

/** True once for an event `mintedEvent` marked (its first append): the mark is taken. */
export function takeMintedMark(event: AuditEvent): boolean {
  return minted.take(event) === true;
}
