const sharedValues = new WeakSet<object>();

/**
 * Marks a value handed to many requests at once, so that what is derived from it (a
 * presentation, its JSON text) may be cached by its identity. Objects are frozen. Arrays are not:
 * V8's fast JSON.stringify path refuses frozen arrays and falls back to one that costs a third
 * more on a large response (measured in docs/benchmarks.md); they are typed readonly wherever
 * they are shared, and nothing writes to them.
 */
export function share<T extends object>(value: T): T {
  if (!Array.isArray(value)) Object.freeze(value);
  sharedValues.add(value);
  return value;
}

/** Whether `value` was marked by share(). */
export function isShared(value: object): boolean {
  return sharedValues.has(value);
}

/**
 * A bounded memo for pure functions of immutable inputs, keyed by an input object's identity and
 * then by a string describing the remaining inputs. The store hands out the same claim and
 * modifier arrays until a profile changes (its version-keyed read cache), so identity is a cheap
 * and exact key: a new version is a new array, and the old entries go with the old array.
 *
 * A memo never changes a result, only what it costs; callers must only use it for values they
 * never mutate (they share() what they store).
 */
export class IdentityMemo<K extends object, V> {
  readonly #byOwner = new WeakMap<K, Map<string, V>>();
  readonly #maxPerOwner: number;

  /** `maxPerOwner` bounds the string keys kept per object, so no caller input can grow it without limit. */
  constructor(maxPerOwner: number) {
    this.#maxPerOwner = maxPerOwner;
  }

  get(owner: K, key: string): V | undefined {
    return this.#byOwner.get(owner)?.get(key);
  }

  set(owner: K, key: string, value: V): V {
    let entries = this.#byOwner.get(owner);
    if (entries === undefined) {
      entries = new Map();
      this.#byOwner.set(owner, entries);
    }
    entries.delete(key);
    // Oldest first (a Map keeps insertion order): drop it when full.
    if (entries.size >= this.#maxPerOwner) entries.delete(entries.keys().next().value as string);
    entries.set(key, value);
    return value;
  }
}

/**
 * An IdentityMemo that holds values for one clock second only: the first lookup in a new second
 * drops everything. For documents stamped with a whole-second time (`generated_at`), which can
 * be reused only within their second, so memory follows what was asked in the last second.
 */
export class SecondMemo<K extends object, V> {
  readonly #maxPerOwner: number;
  #second = Number.NaN;
  #memo: IdentityMemo<K, V>;

  constructor(maxPerOwner: number) {
    this.#maxPerOwner = maxPerOwner;
    this.#memo = new IdentityMemo(maxPerOwner);
  }

  get(second: number, owner: K, key: string): V | undefined {
    return second === this.#second ? this.#memo.get(owner, key) : undefined;
  }

  set(second: number, owner: K, key: string, value: V): V {
    if (second !== this.#second) {
      this.#second = second;
      this.#memo = new IdentityMemo(this.#maxPerOwner);
    }
    return this.#memo.set(owner, key, value);
  }
}
