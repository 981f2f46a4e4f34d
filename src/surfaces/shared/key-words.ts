// What each vocabulary key is called wherever a person reads it (the consent page, the A2UI
// components), in words a person can judge. The extension descriptors (model/extensions) are
// copies of the published vocabularies and speak to implementers ("High values SHOULD push
// systems…", "Values in [0.0, 1.0]"): they stay as published, and the pages take their words from
// here instead. A test checks that every key of every supported vocabulary has words here, so a
// new key cannot reach a person unlabelled.

/**
 * The glossary: one word for each of the model's terms wherever a person reads it, the consent
 * page and the web app alike (issue 26: "areas" meant domains on one and namespaces on the other).
 * A domain is an **area of life** an app works in; a namespace is a **group** of preferences
 * ("Fragrance preferences"); a claim is a **preference**.
 */
export const TERMS = {
  domain: { one: 'area of life', many: 'areas of life' },
  namespace: { one: 'group', many: 'groups' },
  claim: { one: 'preference', many: 'preferences' },
} as const;

/**
 * Where a preference came from, after "Not said by you:" or as the consent page's badge: one
 * phrase per provenance kind (SPEC §5.3), on every page.
 */
export const PROVENANCE_PHRASES = {
  user_stated: 'you said this',
  observed: 'worked out from what you did',
  inferred: 'guessed from your other preferences',
  imported: 'brought over from another app',
  derived_aggregate: 'estimated from people like you',
} as const;

export interface KeyWords {
  /** A short name, as a person would say it. */
  readonly label: string;
  /** One sentence on what it says about the person. */
  readonly about: string;
  /** The unit of a whole number, singular ("day"). */
  readonly unit?: string;
  /** Words for the values of a key whose values are names (travel.accommodation_style). */
  readonly values?: Readonly<Record<string, string>>;
}

/** By qualified key, as grants name them (core keys unprefixed). */
export const KEY_WORDS: Readonly<Record<string, KeyWords>> = {
  novelty_tolerance: {
    label: 'Trying new things',
    about: 'Whether you prefer familiar things (low) or new ones (high).',
  },
  risk_tolerance: {
    label: 'Comfort with risk',
    about: 'How comfortable you are with uncertainty and possible downsides. It is not a money score.',
  },
  regret_sensitivity: {
    label: 'Worry about regret',
    about:
      'How much you mind regretting a choice. When it is high, apps should suggest safer choices that are easy to undo.',
  },
  sensory_intensity_preference: {
    label: 'Strong sensations',
    about: 'How intense you like tastes, scents, sounds and textures.',
  },
  social_energy_preference: {
    label: 'Being with people',
    about: 'Whether you lean towards time alone (low) or lots of company (high).',
  },
  decision_speed_preference: {
    label: 'Deciding quickly',
    about: 'Whether you like to take your time over a decision (low) or decide quickly (high).',
  },
  ambiguity_tolerance: {
    label: 'Open-ended situations',
    about: 'How comfortable you are when things are vague or not settled.',
  },
  budget_sensitivity: {
    label: 'Watching the price',
    about: 'How much price matters to you against quality. It says nothing about your income.',
  },
  explanation_depth_preference: {
    label: 'Detailed explanations',
    about: 'How much detail you want when an app explains something: short (low) or thorough (high).',
  },
  conversation_depth_preference: {
    label: 'Deep conversations',
    about: 'Whether you prefer light talk on many things (low) or deep talk on a few (high).',
  },
  'fragrance.family_preference': {
    label: 'Scent families you like',
    about: 'How much you like each family of scents, such as woody, citrus or floral.',
  },
  'fragrance.intensity_preference': {
    label: 'Scent strength',
    about: 'How strong you like a scent to be on your skin.',
  },
  'fragrance.projection_tolerance': {
    label: 'Scent others notice',
    about: 'How much you accept a scent that people near you can smell.',
  },
  'fragrance.longevity_preference': {
    label: 'How long a scent lasts',
    about: 'How long you like a scent to last on your skin or clothes.',
  },
  'fragrance.sweetness_preference': {
    label: 'Sweet scents',
    about: 'How much you like sweet, sugary scents.',
  },
  'fragrance.freshness_preference': {
    label: 'Fresh scents',
    about: 'How much you like light, airy, watery or citrus scents.',
  },
  'fragrance.occasion_bias': {
    label: 'Scents for each occasion',
    about: 'How much your choice of scent depends on the occasion, such as a date or the office.',
  },
  'fragrance.note_aversions': {
    label: 'Scents you dislike',
    about: 'Notes you do not like, such as oud or patchouli.',
  },
  'travel.climate_heat_humidity_bias': {
    label: 'Hot and humid places',
    about: 'Whether you prefer cool, dry places (low) or hot, humid ones (high).',
  },
  'travel.urbanism_preference': {
    label: 'Cities or countryside',
    about: 'Whether you prefer countryside and wild places (low) or busy cities (high).',
  },
  'travel.pace_preference': {
    label: 'Pace of a trip',
    about: 'Whether you like slow, restful trips (low) or fast, packed ones (high).',
  },
  'travel.cultural_immersion_preference': {
    label: 'Local life',
    about: 'How much you like to join in local life rather than keep to the usual sights.',
  },
  'travel.outdoor_activity_preference': {
    label: 'Outdoor activities',
    about: 'How much you prefer being active outdoors to quiet time indoors.',
  },
  'travel.cuisine_openness': { label: 'Unfamiliar food', about: 'How open you are to food you do not know.' },
  'travel.accommodation_style': {
    label: 'Where you like to stay',
    about: 'The kind of place you like to stay in.',
    values: {
      hostel: 'Hostel',
      boutique: 'Small, stylish hotel',
      business: 'Business hotel',
      luxury: 'Luxury hotel',
      homestay: 'With a local family',
      rental: 'A rented home',
    },
  },
  'travel.group_size_preference': {
    label: 'Who you travel with',
    about: 'Whether you like to travel alone, with one other person or in a group.',
    values: {
      solo: 'Alone',
      pair: 'With one other person',
      small_group: 'In a small group',
      large_group: 'In a large group',
    },
  },
  'travel.trip_duration_preference_days': {
    label: 'Length of a trip',
    about: 'How long you usually like a trip to be.',
    unit: 'day',
  },
};
