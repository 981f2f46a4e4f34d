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
export type ReviewStatus = z.infer<typeof ReviewStatus>;
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

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** RFC 3339 §5.6 date-time, `T` and `Z` in either case, with a real calendar date. */
function isDateTime(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetOk
  );
}

export const DateTime = z
  .string()
  .refine(isDateTime, 'must be an RFC 3339 date-time, e.g. 2026-04-06T18:05:00Z')
  .meta({ format: 'date-time' });

/** An absolute URI without whitespace (JSON Schema `format: uri`). */
export const Uri = z.url().refine((v) => !/\s/.test(v), 'must not contain spaces');

export function ppxId(type: IdType) {
  return z.string().regex(new RegExp(`^ppx:${type}:${ID_BODY}$`), `must look like ppx:${type}:<id>`);
}

export const PpxVersion = z.string().regex(/^[0-9]+\.[0-9]+(-[A-Za-z0-9.-]+)?$/);

/** One day in milliseconds, for every duration stated in days. */
export const MS_PER_DAY = 86_400_000;
