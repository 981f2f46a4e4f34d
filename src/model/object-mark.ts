/**
 * A value kept on an object itself, under a symbol of this mark's own, where a WeakSet or WeakMap
 * would otherwise hold it. For objects made by the thousand a second and dropped as fast (a
 * request, its answer, an audit event), every weak entry is one more ephemeron for each
 * young-generation collection to walk: four per small read cost it 8 % of its throughput
 * (docs/benchmarks.md, "Issue 27"). The property is not enumerable, so JSON, spreads,
 * `Object.keys` and deep equality do not see it; an object that cannot take it (frozen, sealed)
 * simply stays unmarked, which every user treats as "not known": the safe answer. Kept in model/,
 * the layer every other may use (an audit event's own mark is here), as it imports nothing.
 */
export class ObjectMark<V = true> {
  readonly #key: symbol;

  constructor(description: string) {
    this.#key = Symbol(description);
  }

  /** Marks `target` with `value`; returns `target`. */
  set<T extends object>(target: T, value: V): T {
    Reflect.defineProperty(target, this.#key, {
      value,
      writable: true,
      configurable: true,
      enumerable: false,
    });
    return target;
  }

  get(target: object): V | undefined {
    return (target as { readonly [key: symbol]: V | undefined })[this.#key];
  }

  has(target: object): boolean {
    return this.get(target) !== undefined;
  }

  /**
   * The value, which `target` then no longer holds (set to undefined, not deleted: a deleted
   * property turns the object into a slow dictionary, and a marked audit event is serialized next).
   */
  take(target: object): V | undefined {
    const value = this.get(target);
    if (value !== undefined) Reflect.set(target, this.#key, undefined);
    return value;
  }
}
