import type { Rand } from './rand.ts';
import { deepText, type Json, otherType, randomJson, randomKey, randomString } from './values.ts';

// Mutations of a valid value or of its JSON text: one thing broken at a time (a field of the wrong
// type, a field too many, a value nested too deep, text that is not JSON any more, bytes that are
// not UTF-8), so that each input tests the check for that one thing.

type Path = readonly (string | number)[];

/** Every path into `value` (the root first), at most `limit` of them. */
export function pathsOf(value: Json, limit = 200): Path[] {
  const out: Path[] = [];
  const walk = (v: Json, path: Path) => {
    if (out.length >= limit) return;
    out.push(path);
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, [...path, i]);
    } else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(value, []);
  return out;
}

function getAt(value: Json, path: Path): Json {
  let v: Json = value;
  for (const k of path) v = (v as Record<string | number, Json>)[k] as Json;
  return v;
}

/** A copy of `value` with `path` set to `next` (undefined deletes it). */
export function setAt(value: Json, path: Path, next: Json | undefined): Json {
  if (path.length === 0) return next === undefined ? null : next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && next === undefined) copy.splice(head as number, 1);
    else copy[head as number] = setAt(copy[head as number] as Json, rest, next) as Json;
    return copy;
  }
  const copy: Record<string, Json> = { ...(value as Record<string, Json>) };
  if (rest.length === 0 && next === undefined) delete copy[head as string];
  // defineProperty: a key named `__proto__` becomes an own property, as JSON.parse makes it.
  else
    Object.defineProperty(copy, head as string, {
      value: setAt(copy[head as string] as Json, rest, next),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}

/** One field of another type, one field removed, or one field too many. */
export function wrongType(rand: Rand, value: Json): Json {
  const paths = pathsOf(value);
  const path = paths.length > 1 && rand.chance(0.9) ? rand.pick(paths.slice(1)) : [];
  const target = getAt(value, path);
  const kind = rand.int(0, 5);
  if (kind === 0 && path.length > 0) return setAt(value, path, undefined);
  if (kind === 1) {
    const objects = paths.filter((p) => {
      const v = getAt(value, p);
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    });
    if (objects.length > 0) {
      const at = rand.pick(objects);
      return setAt(value, [...at, randomKey(rand)], randomJson(rand, 1));
    }
  }
  if (kind === 2) return setAt(value, path, randomJson(rand, 2));
  return setAt(value, path, otherType(rand, target));
}

const PLACEHOLDER = '\u0001fuzz-raw\u0001';

/** JSON text of `value` with the value at a random path replaced by `raw` (JSON text itself). */
export function spliceRaw(rand: Rand, value: Json, raw: string): string {
  const paths = pathsOf(value);
  const path = paths.length > 1 && rand.chance(0.85) ? rand.pick(paths.slice(1)) : [];
  const text = JSON.stringify(setAt(value, path, PLACEHOLDER));
  return text.replace(JSON.stringify(PLACEHOLDER), () => raw);
}

/** A value nested `depth` levels somewhere in `value`. */
export function deepNested(rand: Rand, value: Json, depth: number): string {
  return spliceRaw(rand, value, deepText(rand, depth));
}

/** A huge string or array, about `bytes` long, somewhere in `value`. */
export function huge(rand: Rand, value: Json, bytes: number): string {
  const kind = rand.int(0, 4);
  let raw: string;
  if (kind === 0) raw = JSON.stringify('x'.repeat(bytes));
  else if (kind === 1)
    raw = JSON.stringify(
      randomString(rand, 20)
        .repeat(Math.max(1, bytes / 20))
        .slice(0, bytes),
    );
  else if (kind === 2) raw = `[${new Array(Math.max(1, Math.floor(bytes / 2))).fill('1').join(',')}]`;
  else if (kind === 3) {
    const item = JSON.stringify(randomString(rand, 8));
    raw = `[${new Array(Math.max(1, Math.floor(bytes / (item.length + 1)))).fill(item).join(',')}]`;
  } else {
    const n = Math.max(1, Math.floor(bytes / 12));
    raw = `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
  }
  return spliceRaw(rand, value, raw);
}

const JUNK = ['{', '}', '[', ']', ',', ':', '"', '\\', "'", '\u0000', 'NaN', 'undefined', '/*', '//', '\n'];

/** JSON text that is no longer JSON (or only just still is: a BOM, duplicate keys, `__proto__`). */
export function malformed(rand: Rand, text: string): string {
  const at = rand.int(0, text.length);
  switch (rand.int(0, 13)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + rand.pick(JUNK) + text.slice(at);
    case 2:
      return text.slice(0, at) + text.slice(at + 1);
    case 3:
      return text.replace(/"/g, "'");
    case 4:
      return `${text},`;
    case 5:
      return text.replace(/\}$/, ',}').replace(/\]$/, ',]');
    case 6:
      return `\ufeff${text}`;
    case 7:
      return `/* c */${text}`;
    case 8:
      return rand.pick([
        'NaN',
        'Infinity',
        '-Infinity',
        '01',
        '1.',
        '.5',
        '+1',
        '0x10',
        '1e99999',
        'tru',
        'nul',
        '""""',
      ]);
    case 9:
      return text.replace(/"([^"\\]*)"/, (_, s: string) => `"${s}\\x41\\u12"`);
    case 10:
      return text.replace(/"([^"\\]*)"/, (_, s: string) => `"${s}\u0001\n\t"`);
    case 11:
      return text.replace(/^\{/, '{"__proto__":{"polluted":1},"a":1,"a":2,');
    case 12:
      return `${text}${text}`;
    default:
      return `${text.slice(0, at)}${randomString(rand, 8)}${text.slice(at)}`;
  }
}

/** Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, surrogates, cut-off sequences. */
const BAD_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf0, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xc3],
];

export function badUtf8(rand: Rand): Buffer {
  const n = rand.int(1, 3);
  return Buffer.from(Array.from({ length: n }, () => rand.pick(BAD_UTF8)).flat());
}

/** `text` as UTF-8 with invalid bytes put inside one of its strings (or anywhere). */
export function withBadUtf8(rand: Rand, text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const quotes: number[] = [];
  for (let i = 0; i < bytes.length && quotes.length < 64; i++) if (bytes[i] === 0x22) quotes.push(i + 1);
  const at = quotes.length > 0 && rand.chance(0.8) ? rand.pick(quotes) : rand.int(0, bytes.length);
  return Buffer.concat([bytes.subarray(0, at), badUtf8(rand), bytes.subarray(at)]);
}
