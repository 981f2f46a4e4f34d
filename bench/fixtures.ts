import type { Claim } from '../src/model/claim.ts';
import type { ContextModifier } from '../src/model/context-modifier.ts';
import { SUPPORTED_EXTENSIONS } from '../src/model/extensions/index.ts';
import type { Profile } from '../src/model/profile.ts';
import { PPX_VERSION } from '../src/model/vocabulary.ts';
import { prng } from '../test/support/random.ts';

// A deterministic benchmark profile: 200 claims over core, fragrance and travel (keys reused, ids
// distinct) and 20 context modifiers, some of which match BENCH_CONTEXT. Same output on every
// call and every machine: a seeded PRNG, fixed timestamps, no Date.now().

export const CLAIM_COUNT = 200;
export const MODIFIER_COUNT = 20;
export const BENCH_SUBJECT = 'did:example:bench-subject-0001';
export const BENCH_CLIENT = 'bench-client';
export const BENCH_NAMESPACES = ['core', 'fragrance', 'travel'] as const;
/** The context every benchmark request resolves under. */
export const BENCH_CONTEXT = { climate: 'hot_humid', occasion: 'date_night' } as const;
export const BENCH_BODY = JSON.stringify({ context: BENCH_CONTEXT });

/**
 * `--cold`: autocannon steps whose every request carries a context no earlier request had
 * (BENCH_CONTEXT plus a `bench_variant` dimension that no modifier names, so the answer is the
 * same), so nothing the provider keeps between requests can answer it: the worst case of the
 * read-reuse caches (docs/benchmarks.md).
 */
export function coldRequests(body: (context: Record<string, unknown>) => string) {
  let n = 0;
  return [
    {
      setupRequest: <R extends { body?: string }>(request: R): R => ({
        ...request,
        body: body({ ...BENCH_CONTEXT, bench_variant: n++ }),
      }),
    },
  ];
}
export const BENCH_PATH = '/v1/profile/effective';

const CREATED_AT = '2026-01-01T00:00:00.000Z';
const CONFIRMED_AT = '2026-06-01T00:00:00.000Z';
/** Far enough away that no claim expires while the benchmark runs (an expired claim is dropped). */
const EXPIRES_AT = '2099-01-01T00:00:00.000Z';

type Kind = Claim['source']['kind'];
const KINDS: readonly Kind[] = ['user_stated', 'observed', 'imported', 'inferred', 'derived_aggregate'];
const ORIGINS: Record<Kind, string> = {
  user_stated: 'onboarding_quiz_v1',
  observed: 'sample_rating_session',
  imported: 'ppx:provider:previous-app',
  inferred: 'choice_model_v3',
  derived_aggregate: 'cohort_patterns_2026q3',
};
const CLAIM_TYPES = ['preference', 'tendency', 'preference', 'aversion', 'derived_signal'] as const;
const FAMILIES = ['woody', 'citrus', 'floral', 'oriental', 'aquatic', 'gourmand'];
const OCCASIONS = ['date_night', 'office', 'weekend', 'wedding', 'gym'];

const unit = (rand: () => number) => Math.round(rand() * 1000) / 1000;

/**
 * The registered keys whose values are numbers in [0,1]: normalized floats, and maps of floats
 * (family_preference, occasion_bias). Strings, string lists and ints are left out on purpose.
 */
function numericKeys(namespace: string): { key: string; map: boolean }[] {
  const ext = SUPPORTED_EXTENSIONS.find((e) => e.namespace === namespace);
  if (!ext) throw new Error(`bench fixture: namespace ${namespace} is not registered`);
  return ext.keys
    .filter(
      (k) =>
        (k.value_type === 'float' && k.units === 'normalized_0_1') || k.value_type === 'map<string,float>',
    )
    .map((k) => ({ key: k.key, map: k.value_type === 'map<string,float>' }));
}

function buildClaims(rand: () => number, total: number): Claim[] {
  // 40 % core, 35 % fragrance, the rest travel: 80, 70, 50 of 200.
  const core = Math.round(total * 0.4);
  const fragrance = Math.round(total * 0.35);
  const plan: [string, number][] = [
    ['core', core],
    ['fragrance', fragrance],
    ['travel', total - core - fragrance],
  ];
  const claims: Claim[] = [];
  let n = 0;
  for (const [namespace, count] of plan) {
    const keys = numericKeys(namespace);
    for (let i = 0; i < count; i++, n++) {
      const def = keys[i % keys.length]!;
      const kind = KINDS[n % KINDS.length]!;
      const value: unknown = def.map
        ? Object.fromEntries(
            (def.key === 'occasion_bias' ? OCCASIONS : FAMILIES).map((name) => [name, unit(rand)]),
          )
        : unit(rand);
      const decay = (['none', 'linear', 'exponential'] as const)[n % 3]!;
      const claim: Claim = {
        claim_id: `ppx:claim:bench-${namespace}-${String(i).padStart(3, '0')}`,
        type: CLAIM_TYPES[n % CLAIM_TYPES.length]!,
        namespace,
        key: def.key,
        value,
        value_type: def.map ? 'map<string,float>' : 'float',
        ...(def.map ? {} : { units: 'normalized_0_1' }),
        ...(CLAIM_TYPES[n % CLAIM_TYPES.length] === 'aversion' ? { polarity: 'negative' as const } : {}),
        confidence: Math.max(0.05, unit(rand)),
        stability: (['low', 'medium', 'high'] as const)[n % 3]!,
        source: { kind, origin: ORIGINS[kind] },
        explanation: {
          summary: `Benchmark claim ${n} about ${namespace}.${def.key}, recorded from ${ORIGINS[kind]}.`,
        },
        // Core claims that name domains name ones the bench grant covers, so none is filtered.
        ...(namespace === 'core' && n % 2 === 0
          ? { applicability: { domains: ['fragrance', 'travel'], contexts: ['default'] } }
          : {}),
        ...(n % 4 !== 3
          ? { lifecycle: { last_confirmed_at: CONFIRMED_AT, expires_at: EXPIRES_AT, decay_policy: decay } }
          : {}),
        review: {
          user_visible: true,
          user_editable: n % 5 !== 0,
          // never `rejected`: a rejected claim is hidden, and the bench checks all 200 come back.
          review_status:
            kind === 'user_stated' ? 'confirmed' : n % 2 === 0 ? 'unreviewed' : 'pending_confirmation',
        },
      };
      claims.push(claim);
    }
  }
  return claims;
}

interface ModifierSpec {
  namespace: string;
  key: string;
  effect_type: ContextModifier['effect_type'];
  condition: Record<string, unknown>;
  targets?: string[];
  effect: ContextModifier['effect'];
}

/**
 * 20 modifiers. Those marked (match) have conditions satisfied by BENCH_CONTEXT; none of those is a
 * veto, so the effective profile keeps all 200 claims. The others name dimensions the bench does
 * not supply (season, time_of_day, social_context...) or other values, so they never match.
 */
const MODIFIER_SPECS: readonly ModifierSpec[] = [
  // (match)
  {
    namespace: 'core',
    key: 'climate_hot_humid',
    effect_type: 'weight_adjustment',
    condition: { climate: 'hot_humid' },
    targets: ['fragrance.projection_tolerance', 'fragrance.freshness_preference'],
    effect: {
      increase: ['freshness_preference'],
      decrease: ['projection_tolerance', 'sweetness_preference'],
    },
  },
  // (match)
  {
    namespace: 'core',
    key: 'occasion_date_night',
    effect_type: 'weight_adjustment',
    condition: { occasion: 'date_night' },
    targets: ['fragrance.intensity_preference', 'fragrance.projection_tolerance'],
    effect: { increase: ['intensity_preference', 'projection_tolerance'] },
  },
  // (match) both dimensions
  {
    namespace: 'travel',
    key: 'hot_date_night',
    effect_type: 'weight_adjustment',
    condition: { climate: 'hot_humid', occasion: 'date_night' },
    targets: ['travel.pace_preference', 'travel.outdoor_activity_preference'],
    effect: { decrease: ['pace_preference', 'outdoor_activity_preference'] },
  },
  // (match) array condition
  {
    namespace: 'core',
    key: 'evening_social',
    effect_type: 'weight_adjustment',
    condition: { occasion: ['date_night', 'party'] },
    targets: ['social_energy_preference', 'novelty_tolerance'],
    effect: { increase: ['social_energy_preference', 'novelty_tolerance'] },
  },
  // (match) empty condition matches every context
  {
    namespace: 'core',
    key: 'always_explain',
    effect_type: 'suggest',
    condition: {},
    targets: ['explanation_depth_preference'],
    effect: { increase: ['explanation_depth_preference'] },
  },
  // (match) override
  {
    namespace: 'travel',
    key: 'humid_climate_bias',
    effect_type: 'override',
    condition: { climate: ['hot_humid', 'hot_dry'] },
    targets: ['travel.climate_heat_humidity_bias'],
    effect: { override: { 'travel.climate_heat_humidity_bias': 0.2 } },
  },
  // (match)
  {
    namespace: 'fragrance',
    key: 'date_night_longevity',
    effect_type: 'weight_adjustment',
    condition: { occasion: 'date_night' },
    targets: ['fragrance.longevity_preference'],
    effect: { increase: ['longevity_preference'] },
  },
  // (match)
  {
    namespace: 'core',
    key: 'hot_risk',
    effect_type: 'weight_adjustment',
    condition: { climate: 'hot_humid' },
    targets: ['risk_tolerance', 'sensory_intensity_preference'],
    effect: { decrease: ['risk_tolerance', 'sensory_intensity_preference'] },
  },
  // the rest never match BENCH_CONTEXT
  {
    namespace: 'fragrance',
    key: 'office_quiet',
    effect_type: 'weight_adjustment',
    condition: { occasion: 'office' },
    targets: ['fragrance.projection_tolerance'],
    effect: { decrease: ['projection_tolerance'] },
  },
  {
    namespace: 'fragrance',
    key: 'winter_sweet',
    effect_type: 'weight_adjustment',
    condition: { season: 'winter' },
    targets: ['fragrance.sweetness_preference'],
    effect: { increase: ['sweetness_preference'] },
  },
  {
    namespace: 'fragrance',
    key: 'summer_fresh',
    effect_type: 'override',
    condition: { season: 'summer', climate: 'hot_humid' },
    targets: ['fragrance.freshness_preference'],
    effect: { override: { 'fragrance.freshness_preference': 0.9 } },
  },
  {
    namespace: 'core',
    key: 'morning_pace',
    effect_type: 'weight_adjustment',
    condition: { time_of_day: 'morning' },
    targets: ['decision_speed_preference'],
    effect: { increase: ['decision_speed_preference'] },
  },
  {
    namespace: 'core',
    key: 'stress_veto',
    effect_type: 'veto',
    condition: { stress_level: 'high' },
    targets: ['ambiguity_tolerance'],
    effect: { decrease: ['ambiguity_tolerance'] },
  },
  {
    namespace: 'travel',
    key: 'cold_outdoor',
    effect_type: 'weight_adjustment',
    condition: { climate: 'cold_dry' },
    targets: ['travel.outdoor_activity_preference'],
    effect: { decrease: ['outdoor_activity_preference'] },
  },
  {
    namespace: 'travel',
    key: 'family_group',
    effect_type: 'suggest',
    condition: { social_context: 'family' },
    targets: ['travel.urbanism_preference'],
    effect: { decrease: ['urbanism_preference'] },
  },
  {
    namespace: 'core',
    key: 'budget_tight',
    effect_type: 'weight_adjustment',
    condition: { budget_sensitivity: 'high' },
    targets: ['budget_sensitivity'],
    effect: { increase: ['budget_sensitivity'] },
  },
  {
    namespace: 'travel',
    key: 'long_horizon',
    effect_type: 'weight_adjustment',
    condition: { time_horizon: 'long', occasion: 'date_night' },
    targets: ['travel.cultural_immersion_preference'],
    effect: { increase: ['cultural_immersion_preference'] },
  },
  {
    namespace: 'fragrance',
    key: 'gym_veto',
    effect_type: 'veto',
    condition: { occasion: 'gym' },
    targets: ['fragrance.intensity_preference'],
    effect: { decrease: ['intensity_preference'] },
  },
  {
    namespace: 'core',
    key: 'solo_conversation',
    effect_type: 'weight_adjustment',
    condition: { social_context: ['solo', 'pair'] },
    targets: ['conversation_depth_preference'],
    effect: { increase: ['conversation_depth_preference'] },
  },
  {
    namespace: 'travel',
    key: 'autumn_cuisine',
    effect_type: 'weight_adjustment',
    condition: { season: 'autumn', climate: 'temperate' },
    targets: ['travel.cuisine_openness'],
    effect: { increase: ['cuisine_openness'] },
  },
];

function buildModifiers(rand: () => number): ContextModifier[] {
  if (MODIFIER_SPECS.length !== MODIFIER_COUNT) throw new Error('bench fixture: expected 20 modifier specs');
  return MODIFIER_SPECS.map((spec, i) => {
    const kind = KINDS[i % KINDS.length]!;
    return {
      modifier_id: `ppx:modifier:bench-${String(i).padStart(2, '0')}-${spec.key.replaceAll('_', '-')}`,
      namespace: spec.namespace,
      key: spec.key,
      effect_type: spec.effect_type,
      ...(spec.targets ? { targets: spec.targets } : {}),
      condition: spec.condition,
      effect: spec.effect,
      confidence: Math.max(0.3, unit(rand)),
      source: { kind, origin: ORIGINS[kind] },
    };
  });
}

/**
 * The benchmark profile document, as `importProfile` takes it: CLAIM_COUNT claims by default
 * (the same document as ever), or `claimCount` built the same way (bench:audit-size).
 */
export function benchProfile(claimCount = CLAIM_COUNT): Profile {
  const rand = prng(0x5eed_2026);
  const claims = buildClaims(rand, claimCount);
  const modifiers = buildModifiers(rand);
  if (claims.length !== claimCount) throw new Error(`bench fixture: built ${claims.length} claims`);
  return {
    ppx_version: PPX_VERSION,
    profile_id: 'ppx:profile:bench-0001',
    subject_id: BENCH_SUBJECT,
    provider_id: 'ppx:provider:local',
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    default_policy: {
      cross_domain_transfer: 'deny',
      inference_writeback: 'review_required',
      retention_days: 365,
    },
    claims,
    context_modifiers: modifiers,
    extensions: BENCH_NAMESPACES.map((namespace) => ({ namespace, version: '0.1' })),
  };
}
