// How many streams one holder may have open on this instance at once: a person's following
// review runs (AG-UI), a grant's task streams whose answers are not yet read (A2A). Each open
// stream holds a subscription, a timer, or bytes its reader has not taken; a person has a few
// tabs and apps and an agent a few calls in flight, not hundreds, so a client that leaks streams
// (reconnecting without closing, or never reading) is stopped here before it costs everyone's
// reads or the process' memory. Per instance: a restart or another instance starts from zero,
// which is safe (it only ever allows fewer streams in total than instances × limit).

export class StreamLimit {
  readonly #open = new Map<string, number>();
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }

  /** Takes a place for one more stream of the holder, or says there is none (undefined). */
  take(holder: string): (() => void) | undefined {
    const open = this.#open.get(holder) ?? 0;
    if (open >= this.#max) return undefined;
    this.#open.set(holder, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.#open.get(holder) ?? 1) - 1;
      if (now <= 0) this.#open.delete(holder);
      else this.#open.set(holder, now);
    };
  }

  get max(): number {
    return this.#max;
  }
}
