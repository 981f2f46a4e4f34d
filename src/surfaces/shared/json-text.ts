import { isShared } from '../../cache/identity-memo.ts';

// JSON text of response data, serialized once per shared value. Within a second, repeated reads
// of the same profile version under the same scope and context get the same document object
// (operations/reads/effective-query-summary.ts), presented once per client (mcp/presentation.ts): their JSON is
// kept beside them (keyed by identity, dropped with them). Only values marked by share() are
// cached: they are never written to after they were made.

const fragments = new WeakMap<object, string>();
/** Shared values serialized once: their text is kept from the second time on (see text()). */
const seenOnce = new WeakSet<object>();

/**
 * Exactly `JSON.stringify(value)` for JSON data (plain objects, arrays, strings, numbers,
 * booleans, null; undefined members skipped), descending `depth` levels into objects and arrays
 * that are not shared so that shared ones below are found; deeper, one JSON.stringify does it all.
 */
export function jsonText(value: unknown, depth = 1): string {
  return text(value, depth) ?? 'null';
}

function text(value: unknown, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (isShared(value)) {
    const cached = fragments.get(value);
    if (cached !== undefined) return cached;
    const made = JSON.stringify(value);
    // Kept only once a value comes back: a value serialized once (every request asking for a
    // new context) would otherwise hold its text until it is collected, for nothing.
    if (seenOnce.has(value)) fragments.set(value, made);
    else seenOnce.add(value);
    return made;
  }
  if (depth <= 0 || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return JSON.stringify(value);
  }
  // Appended, not joined: `+=` makes a rope that is copied once, where the text is used; a join
  // copied the whole text below it at every level (a shared 6 KB document five levels down in an
  // A2A task was copied five times; docs/benchmarks.md, "The lone client, sixth pass").
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      // JSON.stringify writes null for an undefined (or function) element, and for a hole.
      out += `${i > 0 ? ',' : ''}${text(value[i], depth - 1) ?? 'null'}`;
    }
    return `${out}]`;
  }
  let out = '{';
  for (const key of Object.keys(value)) {
    const member = text((value as Record<string, unknown>)[key], depth - 1);
    if (member === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:`;
    out += member;
  }
  return `${out}}`;
}

/** The UTF-8 of shared values' JSON, kept as text() keeps their text (from the second time on). */
const byteFragments = new WeakMap<object, Buffer>();

/**
 * `Buffer.from(jsonText(value, depth))`, made without building the whole text: the hand-made
 * levels are encoded piece by piece and each shared value below them is encoded once and then
 * copied as bytes. For an answer made mostly of a few shared values repeated (an audit page: 50
 * events naming one list of 200 claim keys, ~300 KB), joining the text alone costs more than
 * serializing it; the bytes are copied once, into the answer.
 */
export function jsonBytes(value: unknown, depth: number): Buffer {
  const chunks: Uint8Array[] = [];
  jsonChunks(value, depth, chunks);
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/**
 * jsonBytes's pieces, pushed onto `chunks` instead of joined: for an answer that wraps the value in
 * bytes of its own (an MCP or A2A envelope), so that the value's bytes are copied once, into the
 * answer, and not first into a buffer of their own.
 */
export function jsonChunks(value: unknown, depth: number, chunks: Uint8Array[]): void {
  let pending = '';
  const flush = (): void => {
    if (pending !== '') chunks.push(Buffer.from(pending, 'utf8'));
    pending = '';
  };
  const write = (item: unknown, level: number): boolean => {
    if (typeof item === 'object' && item !== null && isShared(item)) {
      let bytes = byteFragments.get(item);
      if (bytes === undefined) {
        bytes = Buffer.from(JSON.stringify(item), 'utf8');
        if (seenOnce.has(item)) byteFragments.set(item, bytes);
        else seenOnce.add(item);
      }
      flush();
      chunks.push(bytes);
      return true;
    }
    if (
      typeof item !== 'object' ||
      item === null ||
      level <= 0 ||
      typeof (item as { toJSON?: unknown }).toJSON === 'function'
    ) {
      const made = JSON.stringify(item);
      if (made === undefined) return false;
      pending += made;
      return true;
    }
    if (Array.isArray(item)) {
      pending += '[';
      // A for loop, not forEach, which skips holes: JSON.stringify writes null for one.
      for (let i = 0; i < item.length; i++) {
        if (i > 0) pending += ',';
        if (!write(item[i], level - 1)) pending += 'null';
      }
      pending += ']';
      return true;
    }
    pending += '{';
    let first = true;
    for (const key of Object.keys(item)) {
      const member = (item as Record<string, unknown>)[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      pending += `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      write(member, level - 1);
    }
    pending += '}';
    return true;
  };
  if (!write(value, depth)) pending += 'null';
  flush();
}
