import type { DataEntry } from './messages.ts';

// The data model of a surface is the PPX object itself (bindings/a2ui.md, "Data binding"),
// written as v0.8 dataModelUpdate entries. The v0.8 JSON schema allows only two levels (an entry,
// and a valueMap of primitives) and has no arrays, so: a field that is a string, number or
// boolean is typed; an object field is a valueMap of its primitive members; anything deeper, and
// every array, is its JSON text, which the renderer parses back into the value (it parses every
// string that looks like JSON, PITFALLS). Where a typed entry would not read back as it was (a
// string that itself looks like JSON, a null, an empty array, a key the renderer would split on
// `.` or `/`), the enclosing object is sent as JSON text instead; at the top, the whole object,
// under the key `.` (the renderer's "set the value at the path" form). Either way the renderer's data model at the
// path is the object, unmodified: the tests read it back and compare.

type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

/** The entries that put `object` at a dataModelUpdate's path. */
export function objectContents(object: object): DataEntry[] {
  const typed = entries(object as Record<string, unknown>, 0);
  return typed ?? [{ key: '.', valueString: JSON.stringify(object) }];
}

function entries(object: Record<string, unknown>, depth: 0 | 1): DataEntry[] | undefined {
  const out: DataEntry[] = [];
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined) continue; // as JSON.stringify drops it
    if (!safeKey(key)) return undefined;
    const entry = entryOf(key, value as Json, depth);
    if (entry === undefined) return undefined;
    out.push(entry);
  }
  return out;
}

function entryOf(key: string, value: Json, depth: 0 | 1): DataEntry | undefined {
  if (value === null) return undefined;
  if (typeof value === 'string') return looksLikeJson(value) ? undefined : { key, valueString: value };
  if (typeof value === 'number') return { key, valueNumber: value };
  if (typeof value === 'boolean') return { key, valueBoolean: value };
  if (depth === 0 && !Array.isArray(value)) {
    const members = entries(value as Record<string, unknown>, 1);
    if (members !== undefined) return { key, valueMap: members };
  }
  // JSON text of an object or array starts with `{` or `[`: the renderer parses it back, but
  // takes an empty array, or one that starts with an object with a `key`, for entries.
  if (Array.isArray(value) && misread(value)) return undefined;
  return { key, valueString: JSON.stringify(value) };
}

/** An array the renderer would read as data entries (model-processor.js#setDataByPath). */
function misread(value: readonly Json[]): boolean {
  const first = value[0];
  return first === undefined || (typeof first === 'object' && first !== null && 'key' in first);
}

/** What the renderer parses as JSON (model-processor.js#parseIfJsonString). */
function looksLikeJson(s: string): boolean {
  const t = s.trim();
  return (t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'));
}

/** A key the renderer stores as written: it splits keys on `.` and `/`, and reads `[n]` as `.n`. */
function safeKey(key: string): boolean {
  return key !== '' && !/[./[\]]/.test(key);
}
