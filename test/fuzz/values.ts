import type { Rand } from './rand.ts';

// Random JSON values and strings: the raw material every generator mixes into requests. Strings
// come from several alphabets (plain, punctuation, Unicode with lone surrogates and controls, the
// provider's own words), numbers from the corners of IEEE 754, objects with keys that trouble
// JavaScript (`__proto__`, `constructor`).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const PUNCT = ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const ODD_CHARS = [
  '\u0000',
  '\u0007',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u00ad',
  '\u200b',
  '\u200d',
  '\u202e',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\ud800',
  '\udfff',
  '\ud83d\ude00',
  'é',
  'ß',
  'İ',
  'ﬁ',
  '日本',
  'עברית',
  'Ω',
  '\u0301',
];
const NASTY_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  'true',
  'NaN',
  '-1',
  '0',
  '1e309',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '../../../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  '$' + '{jndi:ldap://x}',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '"><img src=x>',
  'javascript:alert(1)',
  'data:text/html,x',
  'http://169.254.169.254/latest/meta-data/',
  // Not `file:///…`: answers that list what earlier inputs stored (A2A ListTasks) would repeat it,
  // and the trace check (verdict.ts) could not tell it from a path of the implementation.
  'file:/etc/passwd',
  '\\\\server\\share',
  'a'.repeat(301),
  'ppx:subject:x',
  'did:example:user-demo-0001',
  '2026-02-30T25:61:61Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00.000Z',
  '1970-01-01',
  'S256',
  'plain',
  '*',
  '.',
  '..',
  '/',
  '#',
  '?',
  '&',
  '=',
];

/** Numbers from the corners: integers past 2^53, -0, subnormals, the largest doubles. */
const NASTY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  1.0000000000000002,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  1e21,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER,
  Number.EPSILON,
  123456789012345680000,
];

export function randomString(rand: Rand, maxLength = 40): string {
  const kind = rand.int(0, 9);
  if (kind === 0) return rand.pick(NASTY_STRINGS);
  const length = rand.size(maxLength);
  let out = '';
  for (let i = 0; i < length; i++) {
    if (kind <= 4) out += ALNUM[rand.int(0, ALNUM.length - 1)];
    else if (kind <= 6) out += (ALNUM + PUNCT)[rand.int(0, ALNUM.length + PUNCT.length - 1)];
    else if (kind <= 8) out += rand.chance(0.3) ? rand.pick(ODD_CHARS) : ALNUM[rand.int(0, 61)];
    else out += String.fromCharCode(rand.int(0, 0xffff));
  }
  return out;
}

export function randomNumber(rand: Rand): number {
  const kind = rand.int(0, 3);
  if (kind === 0) return rand.pick(NASTY_NUMBERS);
  if (kind === 1) return rand.int(-1000, 1000);
  if (kind === 2) return rand.float();
  return (rand.float() - 0.5) * 10 ** rand.int(0, 30);
}

/** An object key: mostly plain, sometimes one JavaScript or the provider treats specially. */
export function randomKey(rand: Rand): string {
  if (rand.chance(0.1)) return rand.pick(['__proto__', 'constructor', 'prototype', 'toString', '', 'then']);
  return randomString(rand, 16);
}

/** Any JSON value, at most `depth` levels deep. */
export function randomJson(rand: Rand, depth = 3): Json {
  const kind = depth <= 0 ? rand.int(0, 3) : rand.int(0, 5);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rand.chance(0.5);
    case 2:
      return randomNumber(rand);
    case 3:
      return randomString(rand);
    case 4:
      return Array.from({ length: rand.size(8) }, () => randomJson(rand, depth - 1));
    default: {
      const out: Record<string, Json> = {};
      const n = rand.size(6);
      for (let i = 0; i < n; i++) out[randomKey(rand)] = randomJson(rand, depth - 1);
      return out;
    }
  }
}

/** A value of another JSON type than `value` has. */
export function otherType(rand: Rand, value: unknown): Json {
  const kinds = ['null', 'boolean', 'number', 'string', 'array', 'object'] as const;
  const own = typeOf(value);
  const kind = rand.pick(kinds.filter((k) => k !== own));
  switch (kind) {
    case 'null':
      return null;
    case 'boolean':
      return rand.chance(0.5);
    case 'number':
      return randomNumber(rand);
    case 'string':
      return rand.chance(0.5) ? textOf(value) : randomString(rand);
    case 'array':
      return rand.chance(0.5) ? [value as Json] : [];
    case 'object':
      return rand.chance(0.5) ? { value: value as Json } : {};
  }
}

export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** `[[[…]]]` or `{"a":{"a":…}}`, `depth` levels, as JSON text (building the value would be slower). */
export function deepText(rand: Rand, depth: number): string {
  const kind = rand.int(0, 2);
  if (kind === 0) return '['.repeat(depth) + ']'.repeat(depth);
  if (kind === 1) return `${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`;
  return `${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`;
}

/**
 * A value as text: JSON for objects. Not String(): an object with its own `toString` key (which
 * the fuzz makes) cannot be converted that way.
 */
export function textOf(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
