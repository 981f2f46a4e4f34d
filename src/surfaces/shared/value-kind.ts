import type { Claim } from '../../model/claim.ts';
import { keyDefinition } from '../../model/extensions/index.ts';
import { humanize } from './describe.ts';
import { KEY_WORDS } from './key-words.ts';

// How a person changes a value (docs/web-app.md, "Changing a preference"): one editor per kind
// of value the vocabularies allow, chosen from the key's registered definition (value type,
// units, allowed values), never from the stored value alone. These are hints for the editor;
// the provider checks the value the person sends with the API's own check
// (model/extensions#vocabularyProblems, through propose_updates) and its refusal is what counts.

interface ValueOption {
  readonly value: string;
  readonly label: string;
}

export type ValueKind =
  /** A 0–1 level, set on a 0–100 slider. */
  | { readonly kind: 'score' }
  /** A number, whole or not, with the unit a person reads ("days"). */
  | { readonly kind: 'number'; readonly integer: boolean; readonly unit?: string }
  /** One of a closed list of names. */
  | { readonly kind: 'choice'; readonly options: readonly ValueOption[] }
  | { readonly kind: 'text' }
  /** Names, each added or removed; from a closed list when the vocabulary gives one. */
  | { readonly kind: 'list'; readonly options?: readonly ValueOption[] }
  | { readonly kind: 'switch' }
  /** From one number to another: a `map` value that is exactly `{min, max}`. */
  | { readonly kind: 'range' }
  /** Names, each with a 0–1 level (`map<string,float>`). */
  | { readonly kind: 'scores' };

type Edited = Pick<Claim, 'namespace' | 'key' | 'value'> & {
  readonly review?: { readonly user_editable?: boolean | undefined } | undefined;
};

/** The editor that suits a claim's key, or undefined when the page cannot change it (editProblem says why). */
export function valueKind(claim: Edited): ValueKind | undefined {
  const def = keyDefinition(claim.namespace, claim.key);
  if (def === undefined) return undefined;
  const words = KEY_WORDS[claim.namespace === 'core' ? claim.key : `${claim.namespace}.${claim.key}`];
  const options = def.allowed_values?.map((value) => ({
    value,
    label: words?.values?.[value] ?? humanize(value),
  }));
  switch (def.value_type) {
    case 'float':
      return def.units === 'normalized_0_1'
        ? { kind: 'score' }
        : { kind: 'number', integer: false, ...(def.units !== undefined ? { unit: def.units } : {}) };
    case 'int':
      return { kind: 'number', integer: true, ...(words?.unit !== undefined ? { unit: words.unit } : {}) };
    case 'bool':
      return { kind: 'switch' };
    case 'string':
      return options !== undefined ? { kind: 'choice', options } : { kind: 'text' };
    case 'string_list':
      return options !== undefined ? { kind: 'list', options } : { kind: 'list' };
    case 'map<string,float>':
      return { kind: 'scores' };
    case 'map':
      return isRange(claim.value) ? { kind: 'range' } : undefined;
    default:
      return undefined;
  }
}

/** Why the page offers no "Change it" for a claim, in words; undefined when it does. */
export function editProblem(claim: Edited): string | undefined {
  if (claim.review?.user_editable === false) return 'You locked this preference, so it cannot be changed.';
  if (keyDefinition(claim.namespace, claim.key) === undefined)
    return 'This preference is not one this service knows, so it cannot be changed here. You can remove it.';
  if (valueKind(claim) === undefined)
    return 'This kind of value cannot be changed here. You can remove it and add it again.';
  return undefined;
}

export function isRange(v: unknown): v is { min: number; max: number } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v).sort();
  const r = v as Record<string, unknown>;
  return keys.join(',') === 'max,min' && typeof r['min'] === 'number' && typeof r['max'] === 'number';
}

/** What the person typed, read as the value it stands for, or the problem in words (a hint). */
export type Read = { readonly value: unknown } | { readonly problem: string };

/**
 * A number as typed. Only "is it a number" is checked here: whether it must be whole is the
 * provider's check (the input says so as a hint), so a refused value comes back in its words.
 */
export function readNumber(typed: string): Read {
  const t = typed.trim().replace(',', '.');
  const n = t === '' ? Number.NaN : Number(t);
  return Number.isFinite(n) ? { value: n } : { problem: 'Type a number, such as 7.' };
}

/** A 0–100 position as the 0–1 level. */
export function readPercent(typed: string): Read {
  const n = Number(typed.trim());
  return typed.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 100
    ? { value: Math.round(n) / 100 }
    : { problem: 'Choose a level from 0 to 100.' };
}

/** From one number to another; the lower first (the provider does not know ranges, so this is checked here). */
export function readRange(min: string, max: string): Read {
  const a = readNumber(min);
  const b = readNumber(max);
  if ('problem' in a) return { problem: `From: ${a.problem}` };
  if ('problem' in b) return { problem: `To: ${b.problem}` };
  if ((a.value as number) > (b.value as number))
    return { problem: 'The first number must not be above the second.' };
  return { value: { min: a.value, max: b.value } };
}

/** Names as listed: trimmed, empty ones left out, each once, in order. */
export function readList(items: readonly string[]): Read {
  return { value: [...new Set(items.map((i) => i.trim()).filter((i) => i !== ''))] };
}

/** Named levels: each name once (trimmed), each level 0–100. */
export function readScores(entries: readonly (readonly [string, string])[]): Read {
  const out: Record<string, number> = {};
  for (const [rawName, level] of entries) {
    const name = rawName.trim();
    if (name === '') continue;
    const read = readPercent(level);
    if ('problem' in read) return { problem: `${humanize(name)}: ${read.problem}` };
    if (name in out) return { problem: `${humanize(name)} is there twice.` };
    out[name] = read.value as number;
  }
  return { value: out };
}

/** A name as a person typed it, as the vocabularies spell names ("Patchouli heavy" → patchouli_heavy). */
export function nameOf(typed: string): string {
  return typed.trim().toLowerCase().replace(/\s+/g, '_');
}

const MUST: readonly [RegExp, string][] = [
  [/^be an integer$/, 'be a whole number'],
  [/^be a number$/, 'be a number'],
  [/^be true or false$/, 'be yes or no'],
  [/^be one of .*$/, 'be one of the choices offered'],
  [/^be a list of strings$/, 'be a list of names'],
  [/^be an object( of numbers)?$/, 'be a list of names with a level each'],
  [/^be between 0\.0 and 1\.0$/, 'be from 0 to 100'],
];

/**
 * The provider's refusal of a changed value (propose_updates' `value must …`, from
 * vocabularyProblems) in words a person reads; any other refusal as it was said.
 */
export function refusalWords(description: string): string {
  const m = /value must ([^;]+?)\.?(?:;|$)/.exec(description);
  if (m === null) return `It was not changed: ${description.replace(/\.$/, '')}.`;
  const said = (m[1] as string).trim();
  const plain = MUST.find(([re]) => re.test(said))?.[1] ?? said;
  return `It was not changed: the value must ${plain}.`;
}
