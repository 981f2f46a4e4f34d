import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Prepares each distinct SQL text once per connection; statements are reused on every call. */
export class StatementCache {
  readonly #db: DatabaseSync;
  readonly #cache = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get(sql: string): StatementSync {
    let stmt = this.#cache.get(sql);
    if (stmt === undefined) {
      stmt = this.#db.prepare(sql);
      this.#cache.set(sql, stmt);
    }
    return stmt;
  }
}
