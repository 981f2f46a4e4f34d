import { namespaceOfKey, normalizeKey } from '../../model/claim.ts';
import { extensionFor, keyDefinitionOf } from '../../model/extensions/index.ts';
import { withoutBidiControls } from '../../model/shown-text.ts';
import { MS_PER_DAY } from '../../model/vocabulary.ts';
import { dayWords } from './a2ui/words.ts';
import { KEY_WORDS, PROVENANCE_PHRASES, TERMS } from './key-words.ts';

// Words for everything the consent page shows: the vocabulary values become short sentences a
// person can judge, the claim keys take their extension descriptor's description.

const PURPOSES: Record<string, string> = {
  recommendation: 'Recommend things to you',
  ranking: 'Put options in the order that suits you',
  matching: 'Match you with things or people that fit',
  simulation: 'Predict how you would react to something',
  summarization: 'Summarize your preferences',
  personalization: 'Tailor what it shows you',
  explanation: 'Explain why something suits you',
  propose_update: 'Suggest changes to your profile',
};

const OPERATIONS: Record<string, string> = {
  read: 'Read the preferences shown below',
  query: 'Ask questions about those preferences',
  // Which changes wait for the person is the write-back rule's to say (writeback-words.ts).
  propose_update: 'Send changes to your profile (“Changes to your profile” says which wait for you)',
  confirm_update: 'Confirm changes to your profile',
  export: 'Export a copy of those preferences',
};

export const CROSS_DOMAIN_WORDS: Record<string, string> = {
  deny: `Only in the ${TERMS.domain.many} above`,
  allow_with_review: 'Also elsewhere, after you review it',
  allow_if_same_provider: `Also elsewhere, except ${TERMS.claim.many} ${PROVENANCE_PHRASES.imported.replace('another app', 'other apps')}`,
  allow: 'Anywhere',
};

/** The badge for a claim's provenance (the glossary's phrase); only `user_stated` is "you said this". */
const PROVENANCE_WORDS: Record<string, string> = PROVENANCE_PHRASES;

export function purposeWords(purpose: string): string {
  return PURPOSES[purpose] ?? humanize(purpose);
}

export function operationWords(operation: string): string {
  return OPERATIONS[operation] ?? humanize(operation);
}

export function provenanceWords(kind: string): string {
  return PROVENANCE_WORDS[kind] ?? humanize(kind);
}

/** A domain is an area of life an app works in; the supported ones have a vocabulary title. */
export function domainWords(domain: string): string {
  const ext = extensionFor(domain);
  return ext ? ext.title.replace(/ (Preference )?Extension$/i, '') : humanize(domain);
}

/** What each area's preferences are about; the descriptors' own prose is written for implementers. */
const NAMESPACE_ABOUT: Record<string, string> = {
  core: 'Broad tendencies that apply everywhere, such as how adventurous or budget-minded you are.',
  fragrance: 'The scents you like and dislike, and how you like to wear them.',
  travel: 'How and where you like to travel.',
};

export function namespaceWords(namespace: string): { title: string; description: string | undefined } {
  const title =
    namespace === 'core'
      ? 'General traits'
      : extensionFor(namespace)
        ? `${domainWords(namespace)} preferences`
        : humanize(namespace);
  return { title, description: NAMESPACE_ABOUT[namespace] };
}

/** All keys a namespace defines, qualified the way grants name them (core unprefixed). */
export function keysOfNamespace(namespace: string): string[] {
  return (extensionFor(namespace)?.keys ?? []).map((k) => normalizeKey(`${namespace}.${k.key}`));
}

/**
 * A claim key (qualified as in grants) in words: its label and one sentence (key-words.ts). A key
 * without words gets its name in words and no sentence, never the descriptor's spec prose.
 */
export function keyWords(qualified: string): { name: string; description: string | undefined } {
  const key = normalizeKey(qualified);
  const words = KEY_WORDS[key];
  if (words) return { name: words.label, description: words.about };
  const namespace = namespaceOfKey(key);
  const bare = key.startsWith(`${namespace}.`) ? key.slice(namespace.length + 1) : key;
  return { name: humanize(bare.replace(/_preference$/, '')), description: undefined };
}

/**
 * A claim value, short and in words: a 0–1 value as a word and a percentage, a whole number
 * with its unit, names in words, lists as a comma list, maps by their strongest entries. Never
 * JSON: a person reads this.
 */
export function valueWords(value: unknown, qualified: string, units?: string): string {
  const key = normalizeKey(qualified);
  const words = KEY_WORDS[key];
  const name = (v: string) => words?.values?.[v] ?? humanize(v);
  if (typeof value === 'number') {
    const unitScale = units === 'normalized_0_1' || keyDefinitionOf(key)?.units === 'normalized_0_1';
    if (unitScale || (value >= 0 && value <= 1 && !Number.isInteger(value))) return levelWords(value);
    if (words?.unit) return `${value} ${value === 1 ? words.unit : `${words.unit}s`}`;
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return name(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? name(v) : String(v))).join(', ');
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    entries.sort((a, b) => (Number(b[1]) || 0) - (Number(a[1]) || 0));
    const shown = entries
      .slice(0, 4)
      .map(([k, v]) => (typeof v === 'number' && v >= 0 && v <= 1 ? `${name(k)} ${percent(v)}` : name(k)));
    const more = entries.length - shown.length;
    return shown.join(', ') + (more > 0 ? `, and ${more} more` : '');
  }
  return '';
}

/** "12 March 2027 (in 30 days)": the one date format (a2ui/words.ts#dayWords) with how far off. */
export function dateWords(iso: string, now: Date): string {
  const days = Math.round((Date.parse(iso) - now.getTime()) / MS_PER_DAY);
  const rel = days <= 0 ? 'today' : days === 1 ? 'in 1 day' : `in ${days} days`;
  return `${dayWords(iso)} (${rel})`;
}

/** "High (72%)". */
export function levelWords(v: number): string {
  const word = scale(v);
  return `${word.charAt(0).toUpperCase()}${word.slice(1)} (${percent(v)})`;
}

function percent(v: number): string {
  return `${Math.round(v * 100)}%`;
}

function scale(v: number): string {
  if (v < 0.2) return 'very low';
  if (v < 0.4) return 'low';
  if (v < 0.6) return 'medium';
  if (v < 0.8) return 'high';
  return 'very high';
}

/** `snake_case` to "Snake case". */
export function humanize(name: string): string {
  // Names from outside (map keys, free-form domains) lose their bidi controls (model/shown-text.ts).
  const words = withoutBidiControls(name).replace(/[_.]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
