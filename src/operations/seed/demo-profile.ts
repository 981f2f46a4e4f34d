import type { Claim } from '../../model/claim.ts';
import type { ContextModifier } from '../../model/context-modifier.ts';
import type { Profile } from '../../model/profile.ts';
import { MS_PER_DAY, PPX_VERSION } from '../../model/vocabulary.ts';

export const DEMO_SUBJECT = 'did:example:user-demo-0001';
export const DEMO_CLIENTS = [
  {
    client_id: 'fragrance-demo',
    name: 'Fragrance Demo App',
    redirect_uris: ['http://localhost:5173/callback'],
  },
  { client_id: 'travel-demo', name: 'Travel Demo Agent', redirect_uris: ['http://localhost:5174/callback'] },
] as const;

type Kind = Claim['source']['kind'];

function claim(
  id: string,
  namespace: string,
  key: string,
  value: unknown,
  kind: Kind,
  confidence: number,
  extra: Partial<Claim> = {},
): Claim {
  const numeric = typeof value === 'number';
  return {
    claim_id: `ppx:claim:demo-${id}`,
    type: 'preference',
    namespace,
    key,
    value,
    ...(numeric && !Number.isInteger(value) ? { value_type: 'float' as const, units: 'normalized_0_1' } : {}),
    confidence,
    stability: 'medium',
    source: { kind, origin: ORIGINS[kind] },
    review: {
      user_visible: true,
      user_editable: true,
      review_status: kind === 'user_stated' ? 'confirmed' : 'unreviewed',
    },
    ...extra,
  };
}

const ORIGINS: Record<Kind, string> = {
  user_stated: 'onboarding_quiz_v1',
  observed: 'sample_rating_session',
  imported: 'ppx:provider:previous-app',
  inferred: 'choice_model_v3',
  derived_aggregate: 'cohort_patterns_2026q3',
};

/** The demo profile `npm start` seeds on first start: every provenance kind, three namespaces. */
export function demoProfile(now: Date): Profile {
  const at = now.toISOString();
  const inAYear = new Date(now.getTime() + 365 * MS_PER_DAY).toISOString();
  const claims: Claim[] = [
    claim('core-novelty', 'core', 'novelty_tolerance', 0.62, 'inferred', 0.78, {
      explanation: { summary: 'Prefers moderate novelty over highly familiar or highly disruptive options.' },
      applicability: { domains: ['fragrance', 'travel', 'media'], contexts: ['default'] },
      lifecycle: { last_confirmed_at: at, expires_at: inAYear, decay_policy: 'linear' },
    }),
    claim('core-social', 'core', 'social_energy_preference', 0.48, 'user_stated', 0.9),
    claim('core-sensory', 'core', 'sensory_intensity_preference', 0.55, 'observed', 0.7),
    claim('core-risk', 'core', 'risk_tolerance', 0.35, 'imported', 0.6),
    claim('core-ambiguity', 'core', 'ambiguity_tolerance', 0.58, 'derived_aggregate', 0.45),
    claim('core-budget', 'core', 'budget_sensitivity', 0.7, 'user_stated', 0.85),
    claim('core-explanation', 'core', 'explanation_depth_preference', 0.8, 'observed', 0.66),
    claim(
      'frag-family',
      'fragrance',
      'family_preference',
      { woody: 0.82, citrus: 0.64, aquatic: 0.55, gourmand: 0.18 },
      'observed',
      0.71,
      {
        value_type: 'map<string,float>',
        applicability: { domains: ['fragrance'], contexts: ['default'] },
      },
    ),
    claim('frag-intensity', 'fragrance', 'intensity_preference', 0.45, 'user_stated', 0.8),
    claim('frag-projection', 'fragrance', 'projection_tolerance', 0.5, 'inferred', 0.62),
    claim('frag-freshness', 'fragrance', 'freshness_preference', 0.6, 'observed', 0.74),
    claim('frag-sweetness', 'fragrance', 'sweetness_preference', 0.18, 'user_stated', 0.74, {
      type: 'aversion',
      polarity: 'negative',
    }),
    claim('frag-aversions', 'fragrance', 'note_aversions', ['oud', 'patchouli_heavy'], 'user_stated', 0.95, {
      type: 'aversion',
      value_type: 'string_list',
    }),
    claim(
      'frag-occasion',
      'fragrance',
      'occasion_bias',
      { date_night: 0.82, office: 0.4 },
      'imported',
      0.58,
      {
        value_type: 'map<string,float>',
      },
    ),
    claim('travel-climate', 'travel', 'climate_heat_humidity_bias', 0.3, 'observed', 0.69),
    claim('travel-urbanism', 'travel', 'urbanism_preference', 0.72, 'user_stated', 0.88),
    claim('travel-pace', 'travel', 'pace_preference', 0.4, 'inferred', 0.52),
    claim('travel-cuisine', 'travel', 'cuisine_openness', 0.85, 'derived_aggregate', 0.41),
    claim('travel-stay', 'travel', 'accommodation_style', 'boutique', 'user_stated', 0.9, {
      value_type: 'string',
    }),
    claim('travel-days', 'travel', 'trip_duration_preference_days', 6, 'imported', 0.6, {
      value_type: 'int',
    }),
  ];
  const modifiers: ContextModifier[] = [
    {
      modifier_id: 'ppx:modifier:demo-climate-hot-humid',
      namespace: 'core',
      key: 'climate_heat_humidity_bias',
      effect_type: 'weight_adjustment',
      targets: ['fragrance.projection_tolerance', 'fragrance.freshness_preference'],
      condition: { climate: 'hot_humid' },
      effect: {
        increase: ['freshness_preference'],
        decrease: ['projection_tolerance', 'sweetness_preference'],
      },
      confidence: 0.81,
      source: { kind: 'observed', origin: 'seasonal_behavior_log' },
    },
    {
      modifier_id: 'ppx:modifier:demo-occasion-date-night',
      namespace: 'core',
      key: 'occasion_date_night',
      effect_type: 'weight_adjustment',
      targets: ['fragrance.intensity_preference', 'fragrance.projection_tolerance'],
      condition: { occasion: 'date_night' },
      effect: { increase: ['intensity_preference', 'projection_tolerance'] },
      confidence: 0.7,
      source: { kind: 'user_stated', origin: 'onboarding_quiz_v1' },
    },
    {
      modifier_id: 'ppx:modifier:demo-occasion-office',
      namespace: 'core',
      key: 'occasion_office',
      effect_type: 'weight_adjustment',
      targets: ['fragrance.projection_tolerance'],
      condition: { occasion: 'office' },
      effect: { decrease: ['projection_tolerance'] },
      confidence: 0.76,
      source: { kind: 'inferred', origin: 'choice_model_v3' },
    },
  ];
  return {
    ppx_version: PPX_VERSION,
    profile_id: 'ppx:profile:demo-0001',
    subject_id: DEMO_SUBJECT,
    provider_id: 'ppx:provider:local',
    created_at: at,
    updated_at: at,
    default_policy: {
      cross_domain_transfer: 'deny',
      inference_writeback: 'review_required',
      retention_days: 365,
    },
    claims,
    context_modifiers: modifiers,
    extensions: [
      { namespace: 'core', version: '0.1' },
      { namespace: 'fragrance', version: '0.1' },
      { namespace: 'travel', version: '0.1' },
    ],
  };
}
