/**
 * Code-unit string order. `localeCompare` depends on the ICU build and locale, which would make
 * "same input → same output" vary between machines.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Compares by the given string keys, then by canonical-ish JSON as a last resort so that two
 * objects sharing an id (a data error, but possible) still sort the same whatever the input order.
 */
export function compareBy<T>(keys: readonly ((x: T) => string)[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const key of keys) {
      const c = compareStrings(key(a), key(b));
      if (c !== 0) return c;
    }
    return compareStrings(JSON.stringify(a), JSON.stringify(b));
  };
}
