// How many following review runs one person may hold open on this instance at once. Each holds a
// change subscription and a timer; a person has a few tabs and apps, not hundreds, so a client
// that leaks streams (reconnecting without closing) is stopped here before it costs everyone's
// reads. One-shot runs end by themselves and are not counted. Per instance: a restart or another
// instance starts from zero, which is safe (it only ever allows fewer streams in total than
// instances × limit).

/** Open following runs of a person, per instance. */
export const MAX_RUNS_PER_PERSON = 16;

export class RunLimit {
  readonly #open = new Map<string, number>();
  readonly #max: number;
  constructor(max = MAX_RUNS_PER_PERSON) {
    this.#max = max;
  }

  /** Takes a place for one more run of the person, or says there is none (undefined). */
  take(subjectId: string): (() => void) | undefined {
    const open = this.#open.get(subjectId) ?? 0;
    if (open >= this.#max) return undefined;
    this.#open.set(subjectId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.#open.get(subjectId) ?? 1) - 1;
      if (now <= 0) this.#open.delete(subjectId);
      else this.#open.set(subjectId, now);
    };
  }

  get max(): number {
    return this.#max;
  }
}
