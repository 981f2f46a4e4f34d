/**
 * Freezes a record and everything in it, in place, so that every reader of a cache can share it.
 * Arrays stay unfrozen (typed readonly where they are handed out): V8's fast JSON.stringify path
 * refuses frozen arrays (docs/benchmarks.md, content-cache.ts).
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (!Array.isArray(value)) Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}
