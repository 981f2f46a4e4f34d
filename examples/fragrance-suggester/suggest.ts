import { type EffectiveProfile, lookup } from '@ppx-provider/client';
import { KEYS_ASKED } from './preferences.ts';

// From what the grant shows to words a person reads, and to one suggestion from a small catalog.
// Only this file knows what the preferences mean; it reads them with the package's `lookup`, which
// tells "you did not share this" from "your provider has nothing on this".

interface Fragrance {
  readonly name: string;
  readonly family: string;
  /** 0 (a whisper) to 1 (fills a room), and likewise how sweet and how fresh it is. */
  readonly strength: number;
  readonly sweetness: number;
  readonly freshness: number;
  readonly notes: readonly string[];
  readonly words: string;
}

const CATALOG: readonly Fragrance[] = [
  {
    name: 'Cedar Walk',
    family: 'woody',
    strength: 0.5,
    sweetness: 0.2,
    freshness: 0.4,
    notes: ['cedar', 'vetiver'],
    words: 'dry cedar and vetiver',
  },
  {
    name: 'Smoked Library',
    family: 'woody',
    strength: 0.8,
    sweetness: 0.3,
    freshness: 0.1,
    notes: ['leather', 'patchouli_heavy'],
    words: 'leather and dark patchouli',
  },
  {
    name: 'Lemon Grove',
    family: 'citrus',
    strength: 0.35,
    sweetness: 0.2,
    freshness: 0.85,
    notes: ['lemon', 'neroli'],
    words: 'lemon peel and orange blossom',
  },
  {
    name: 'Harbour Morning',
    family: 'aquatic',
    strength: 0.3,
    sweetness: 0.1,
    freshness: 0.9,
    notes: ['sea salt', 'bergamot'],
    words: 'sea air and bergamot',
  },
  {
    name: 'Night Amber',
    family: 'oriental',
    strength: 0.85,
    sweetness: 0.6,
    freshness: 0.1,
    notes: ['amber', 'oud'],
    words: 'warm amber and oud',
  },
  {
    name: 'Vanilla Loft',
    family: 'gourmand',
    strength: 0.6,
    sweetness: 0.9,
    freshness: 0.1,
    notes: ['vanilla', 'tonka'],
    words: 'vanilla and tonka bean',
  },
  {
    name: 'Garden Letter',
    family: 'floral',
    strength: 0.45,
    sweetness: 0.45,
    freshness: 0.55,
    notes: ['iris', 'pear'],
    words: 'iris and pear',
  },
];

/** What each key is called on the page. */
const LABELS: Record<(typeof KEYS_ASKED)[number], string> = {
  budget_sensitivity: 'Watching the price',
  'fragrance.family_preference': 'Scent families you like',
  'fragrance.intensity_preference': 'Scent strength',
  'fragrance.sweetness_preference': 'Sweet scents',
  'fragrance.freshness_preference': 'Fresh scents',
  'fragrance.note_aversions': 'Scents you dislike',
};

/** One line of "what your provider shared": a value in words, or why there is none. */
export interface Shown {
  readonly label: string;
  readonly state: 'present' | 'not_granted' | 'not_there';
  readonly words?: string;
}

interface Suggestion {
  readonly name: string;
  readonly family: string;
  readonly words: string;
  readonly bottle: string;
  readonly why: readonly string[];
}

/** What the read shows for each key this app asked for. */
export interface Reading {
  readonly shown: readonly Shown[];
  /** The liked families as the provider gave them, for "I liked it" (absent when not shared). */
  readonly families?: Record<string, number>;
  readonly suggestion?: Suggestion;
  /** When the grant ends, unless the person stops it sooner. */
  readonly expiresAt?: string;
}

export function readProfile(profile: EffectiveProfile): Reading {
  const values = new Map<string, unknown>();
  const shown = KEYS_ASKED.map((key): Shown => {
    const found = lookup(profile, key);
    if (found.state !== 'present') return { label: LABELS[key], state: found.state };
    values.set(key, found.claim.value);
    return { label: LABELS[key], state: 'present', words: valueWords(found.claim.value) };
  });
  const families = numberMap(values.get('fragrance.family_preference'));
  const suggestion = suggest(values, families);
  const expiresAt = profile.grant?.expires_at;
  return {
    shown,
    ...(families ? { families } : {}),
    ...(suggestion ? { suggestion } : {}),
    ...(expiresAt ? { expiresAt } : {}),
  };
}

/** The best match in the catalog for what was shared, leaving out anything with a disliked note. */
function suggest(values: Map<string, unknown>, families: Record<string, number> | undefined) {
  const want = {
    strength: numberOr(values.get('fragrance.intensity_preference')),
    sweetness: numberOr(values.get('fragrance.sweetness_preference')),
    freshness: numberOr(values.get('fragrance.freshness_preference')),
  };
  if (families === undefined && Object.values(want).every((v) => v === undefined)) return undefined;
  const avoid = stringList(values.get('fragrance.note_aversions'));
  const score = (f: Fragrance) =>
    2 * (families?.[f.family] ?? 0.5) -
    Math.abs((want.strength ?? f.strength) - f.strength) -
    Math.abs((want.sweetness ?? f.sweetness) - f.sweetness) -
    Math.abs((want.freshness ?? f.freshness) - f.freshness);
  const best = CATALOG.filter((f) => !f.notes.some((n) => avoid.includes(n))).sort(
    (a, b) => score(b) - score(a),
  )[0];
  if (best === undefined) return undefined;
  const why: string[] = [];
  const liking = families?.[best.family];
  if (liking !== undefined) why.push(`you like ${best.family} scents (${percent(liking)})`);
  if (want.strength !== undefined) why.push(`you like a scent of ${level(want.strength)} strength`);
  if (want.freshness !== undefined) why.push(`your liking for fresh scents is ${level(want.freshness)}`);
  if (avoid.length > 0) why.push(`it has none of the notes you dislike (${avoid.map(noteWords).join(', ')})`);
  const budget = numberOr(values.get('budget_sensitivity'));
  const bottle =
    budget === undefined
      ? 'the 50 ml bottle'
      : budget >= 0.6
        ? 'the 30 ml bottle, since you watch the price'
        : 'the 100 ml bottle';
  return { name: best.name, family: best.family, words: best.words, bottle, why };
}

function valueWords(value: unknown): string {
  if (typeof value === 'number') return `${level(value)} (${percent(value)})`;
  if (Array.isArray(value)) return value.map((v) => noteWords(String(v))).join(', ');
  const map = numberMap(value);
  if (map) {
    return Object.entries(map)
      .sort(([, a], [, b]) => b - a)
      .map(([k, v]) => `${k} ${percent(v)}`)
      .join(', ');
  }
  return String(value);
}

const level = (v: number) => (v < 0.34 ? 'low' : v < 0.67 ? 'medium' : 'high');
const percent = (v: number) => `${Math.round(v * 100)}%`;
const noteWords = (note: string) => note.replace(/_/g, ' ');
const numberOr = (v: unknown) => (typeof v === 'number' ? v : undefined);
const stringList = (v: unknown) => (Array.isArray(v) ? v.filter((s) => typeof s === 'string') : []);

function numberMap(v: unknown): Record<string, number> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const entries = Object.entries(v).filter((e): e is [string, number] => typeof e[1] === 'number');
  return Object.fromEntries(entries);
}
