import { z } from 'zod';
import {
  ClaimType,
  DateTime,
  DecayPolicy,
  Polarity,
  ProvenanceKind,
  ppxId,
  ReviewStatus,
  Stability,
  ValueType,
} from './vocabulary.ts';

/** A claim (SPEC §5.2, claim.schema.json). */
export const Claim = z.strictObject({
  claim_id: ppxId('claim'),
  type: ClaimType,
  namespace: z.string().min(1),
  key: z.string().min(1),
  value: z.unknown(),
  value_type: ValueType.optional(),
  units: z.string().optional(),
  polarity: Polarity.optional(),
  confidence: z.number().min(0).max(1),
  stability: Stability.optional(),
  source: z.strictObject({
    kind: ProvenanceKind,
    origin: z.string().optional(),
    evidence_refs: z.array(ppxId('evidence')).optional(),
  }),
  explanation: z.strictObject({ summary: z.string().optional(), detail: z.string().optional() }).optional(),
  applicability: z
    .strictObject({ domains: z.array(z.string()).optional(), contexts: z.array(z.string()).optional() })
    .optional(),
  lifecycle: z
    .strictObject({
      last_confirmed_at: DateTime.optional(),
      expires_at: DateTime.optional(),
      decay_policy: DecayPolicy.optional(),
    })
    .optional(),
  review: z
    .strictObject({
      user_visible: z.boolean().optional(),
      user_editable: z.boolean().optional(),
      review_status: ReviewStatus.optional(),
    })
    .optional(),
});
export type Claim = z.infer<typeof Claim>;

/**
 * What of a claim decides who may see it: everything policy/visibility.ts reads, nothing else. A
 * Claim is one; so is the store's record of when claims of one shape last changed
 * (migration 0010), which is why visibility takes this and not the whole claim. Two claims with
 * equal shapes are visible under exactly the same scopes. Keep it in step with visibility.ts.
 */
export interface ClaimShape {
  readonly namespace: string;
  readonly key: string;
  readonly applicability?: { readonly domains?: readonly string[] | undefined } | undefined;
  readonly source: { readonly kind: ProvenanceKind };
  readonly review?: { readonly review_status?: ReviewStatus | undefined } | undefined;
}

/**
 * A claim's shape as the store keeps it: the domains only of a core claim that names some (a
 * domain namespace's claims belong to their namespace whatever they name), the review only when
 * it has a status.
 */
export function claimShape(claim: ClaimShape): ClaimShape {
  const domains = claim.namespace === 'core' ? claim.applicability?.domains : undefined;
  const status = claim.review?.review_status;
  return {
    namespace: claim.namespace,
    key: claim.key,
    ...(domains !== undefined && domains.length > 0 ? { applicability: { domains } } : {}),
    source: { kind: claim.source.kind },
    ...(status !== undefined ? { review: { review_status: status } } : {}),
  };
}

/**
 * The key a grant names a claim by: core keys are unprefixed (`novelty_tolerance`), domain keys
 * are `namespace.key` (`fragrance.family_preference`) — WIRE-NOTES §1.
 */
export function qualifiedKey(claim: { namespace: string; key: string }): string {
  return claim.namespace === 'core' ? claim.key : `${claim.namespace}.${claim.key}`;
}

/** Normalizes a grant or request key: `core.x` and `x` both mean the core key `x`. */
export function normalizeKey(key: string): string {
  return key.startsWith('core.') ? key.slice('core.'.length) : key;
}

/** The namespace a qualified key belongs to. */
export function namespaceOfKey(key: string): string {
  const k = normalizeKey(key);
  const dot = k.indexOf('.');
  return dot < 0 ? 'core' : k.slice(0, dot);
}
