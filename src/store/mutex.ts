/**
 * A promise chain: each task starts after the previous one settles, whatever its outcome. The
 * stores queue their writes on one (SQLite: its one write connection; PostgreSQL: at most one
 * pooled connection per instance holds or waits for the write lock).
 *
 * `before`, when given, runs as each task's turn comes; a promise it returns is waited for (its
 * outcome ignored) before the task starts. SQLite's store waits there, without blocking the event
 * loop, while its checkpoint thread holds the file's write lock (sqlite/checkpointer.ts).
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  readonly #before: (() => Promise<unknown> | undefined) | undefined;

  constructor(before?: () => Promise<unknown> | undefined) {
    this.#before = before;
  }

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const before = this.#before;
    const turn =
      before === undefined
        ? task
        : () => {
            const wait = before();
            // The wait's outcome is not the task's argument: it only says when the turn is.
            const go = () => task();
            return wait === undefined ? go() : wait.then(go, go);
          };
    const result = this.#tail.then(turn);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
