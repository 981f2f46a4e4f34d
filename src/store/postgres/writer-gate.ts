import { Mutex } from '../mutex.ts';

/**
 * Keeps the connections that hold or wait for a write lock to one per scope and to `limit` in all,
 * so that transactions waiting on a lock never take every pooled connection from the reads (and
 * from the transaction holding that lock, which may read through the store). An unscoped
 * transaction ('') waits until no other runs, and none starts while it waits.
 */
export class WriterGate {
  readonly #limit: number;
  readonly #queues = new Map<string, { mutex: Mutex; pending: number }>();
  readonly #waiting: { readonly exclusive: boolean; readonly enter: () => void }[] = [];
  #running = 0;
  #exclusive = false;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = { mutex: new Mutex(), pending: 0 };
      this.#queues.set(key, queue);
    }
    const q = queue;
    q.pending++;
    return q.mutex
      .run(async () => {
        await this.#enter(key === '');
        try {
          return await task();
        } finally {
          this.#leave(key === '');
        }
      })
      .finally(() => {
        if (--q.pending === 0) this.#queues.delete(key);
      });
  }

  /** Resolves once nothing runs or waits. */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) {
      await Promise.all([...this.#queues.values()].map((q) => q.mutex.run(() => undefined)));
    }
  }

  #fits(exclusive: boolean): boolean {
    return exclusive ? this.#running === 0 : !this.#exclusive && this.#running < this.#limit;
  }

  #enter(exclusive: boolean): Promise<void> {
    if (this.#waiting.length === 0 && this.#fits(exclusive)) {
      this.#take(exclusive);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push({ exclusive, enter: resolve }));
  }

  #take(exclusive: boolean): void {
    this.#running++;
    if (exclusive) this.#exclusive = true;
  }

  #leave(exclusive: boolean): void {
    this.#running--;
    if (exclusive) this.#exclusive = false;
    // Wake waiters in order while they fit (first in, first out: none overtakes an earlier one).
    for (
      let next = this.#waiting[0];
      next !== undefined && this.#fits(next.exclusive);
      next = this.#waiting[0]
    ) {
      this.#waiting.shift();
      this.#take(next.exclusive);
      next.enter();
    }
  }
}
