import { z } from 'zod';
import { ID_BODY, type IdType } from './ids.ts';

// The closed vocabularies of PPX draft 0.1 (SPEC §5–§6), each defined once.

export const PPX_VERSION = '0.1';

export const ProvenanceKind = z.enum([
  'user_stated',
  'observed',
  'imported',
  'inferred',
  'derived_aggregate',
]);
export type ProvenanceKind = z.infer<typeof ProvenanceKind>;

export const ClaimType = z.enum([
  'preference',
  'aversion',
  'tendency',
  'constraint',
  'setting',
  'derived_signal',
]);
export const ValueType = z.enum([
  'float',
  'int',
  'bool',
  'string',
  'string_list',
  'map',
  'map<string,float>',
]);
export type ValueType = z.infer<typeof ValueType>;
export const Stability = z.enum(['low', 'medium', 'high']);
export const ReviewStatus = z.enum(['unreviewed', 'pending_confirmation', 'confirmed', 'rejected']);
export const DecayPolicy = z.enum(['none', 'linear', 'exponential']);
export const Polarity = z.enum(['positive', 'negative', 'neutral']);

export const Purpose = z.enum([
  'recommendation',
  'ranking',
  'matching',
  'simulation',
  'summarization',
  'personalization',
  'explanation',
  'propose_update',
]);
export type Purpose = z.infer<typeof Purpose>;

export const Operation = z.enum(['read', 'query', 'propose_update', 'confirm_update', 'export']);
export type Operation = z.infer<typeof Operation>;

export const GrantStatus = z.enum(['active', 'expired', 'revoked', 'pending']);
export type GrantStatus = z.infer<typeof GrantStatus>;

export const CrossDomainTransfer = z.enum(['deny', 'allow_with_review', 'allow_if_same_provider', 'allow']);
export type CrossDomainTransfer = z.infer<typeof CrossDomainTransfer>;

export const WritebackPolicy = z.enum(['forbidden', 'review_required', 'auto_for_low_risk', 'allow']);
export type WritebackPolicy = z.infer<typeof WritebackPolicy>;

export const Redisclosure = z.enum(['forbidden', 'same_purpose_only', 'allow']);

/** Core recommended context dimensions (SPEC §5.3); other dimensions are allowed too. */
export const CONTEXT_DIMENSIONS = [
  'climate',
  'season',
  'time_of_day',
  'occasion',
  'social_context',
  'stress_level',
  'budget_sensitivity',
  'time_horizon',
] as const;

export const DateTime = z.iso.datetime({ offset: true });

export function ppxId(type: IdType) {
  return z.string().regex(new RegExp(`^ppx:${type}:${ID_BODY}$`), `must look like ppx:${type}:<id>`);
}

export const PpxVersion = z.string().regex(/^[0-9]+\.[0-9]+(-[A-Za-z0-9.-]+)?$/);
