import { prng } from '../support/random.ts';

// The randomness of one input. Each input draws from a PRNG seeded by (run seed, input index)
// alone, so that input i of seed S is the same request whatever ran before it and in whatever
// order the connections took the inputs: `--seed S --only i` makes it again.

/** A 32-bit seed for input `index` of run `seed` (murmur3's finalizer over both). */
export function inputSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class Rand {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = prng(seed);
  }

  /** In [0, 1). */
  float(): number {
    return this.#next();
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.#next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.#next() * items.length)] as T;
  }

  /** One of `items`, each as likely as its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let r = this.#next() * total;
    for (const [item, w] of items) {
      r -= w;
      if (r < 0) return item;
    }
    return items[items.length - 1]![0];
  }

  /** Mostly small, sometimes large: sizes spread over orders of magnitude up to `max`. */
  size(max: number): number {
    const exp = this.#next() * Math.log2(max + 1);
    return Math.floor(2 ** exp) - 1;
  }
}
