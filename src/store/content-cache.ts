import { deepFreeze } from './deep-freeze.ts';
/**
 * Parsed claims (or modifiers, or claim change times) of a profile, kept for as long as the
 * profile's `version` stays the same (migration 0002 bumps it on every change to claims or
 * modifiers, from a counter that never repeats; change times move only with a claim write). Parsing
 * the JSON bodies was the largest cost of a read; with the cache a read costs one indexed
 * version lookup. Entries are deep-frozen because every reader shares them (objects only: V8's
 * fast JSON.stringify path refuses frozen arrays, see cache/identity-memo.ts#share; the arrays
 * are typed readonly). The same array goes to every read of the same version, so layers above can key their own reuse on its
 * identity (cache/identity-memo.ts).
 *
 * Only for reads that see committed data alone (SQLite's read connection, PostgreSQL's pool outside
 * a transaction): a cache filled from inside a transaction could outlive a rollback.
 */
export class ContentCache<T> {
  readonly #entries = new Map<string, { version: number; items: readonly T[] }>();
  readonly #limit: number;

  constructor(limit = 1000) {
    this.#limit = limit;
  }

  /** Items for `version`, or undefined when the cache holds another version or none. */
  get(profileId: string, version: number): readonly T[] | undefined {
    const entry = this.#entries.get(profileId);
    return entry?.version === version ? entry.items : undefined;
  }

  set(profileId: string, version: number, items: T[]): readonly T[] {
    for (const item of items) deepFreeze(item);
    this.#entries.delete(profileId);
    if (this.#entries.size >= this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(profileId, { version, items });
    return items;
  }
}
