/**
 * A promise chain: each task starts after the previous one settles, whatever its outcome. The
 * stores queue their writes on one (SQLite: its one write connection; PostgreSQL: at most one
 * pooled connection per instance holds or waits for the write lock).
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
