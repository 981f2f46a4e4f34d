import { deepFreeze } from '../deep-freeze.ts';
import type { StoreWriter } from '../store.ts';
import type { StatementCache } from './statement-cache.ts';

/**
 * Records read by primary key (grants, clients, token families, profiles with their content),
 * kept while nothing changed them: every read of a grant-bearing request looks the same grant and
 * profile up again, every token refresh its client, family and grants, and each lookup was a
 * statement and a parse. Valid only for a connection that sees committed data alone, like
 * ContentCache. `PRAGMA data_version` (one cheap statement) moves when another connection
 * commits, another process included; the store calls `clear` after its own commits on this
 * connection unless every write they held is one of KEEPS_RECORDS. So a revocation is seen by the
 * next read, from wherever it came. Entries are deep-frozen: every reader shares them.
 */
export class RecordCache {
  readonly #sql: StatementCache;
  readonly #entries = new Map<string, unknown>();
  #dataVersion = -1;

  constructor(sql: StatementCache) {
    this.#sql = sql;
  }

  /** The value under `key` if nothing was committed since it was stored; else loads and keeps it. */
  read<T>(key: string, load: () => T | undefined): T | undefined {
    const version = Number(this.#sql.get('PRAGMA data_version').get()?.['data_version']);
    if (version !== this.#dataVersion) {
      this.#entries.clear();
      this.#dataVersion = version;
    }
    const hit = this.#entries.get(key) as T | undefined;
    if (hit !== undefined) return hit;
    const value = load();
    if (value === undefined) return undefined;
    if (this.#entries.size >= 5000) this.#entries.clear();
    this.#entries.set(key, deepFreeze(value));
    return value;
  }

  /** After a commit on this connection (data_version does not move for a connection's own). */
  clear(): void {
    this.#entries.clear();
  }
}

/**
 * Writers that change no record a RecordCache keeps (grants, clients, token families, profiles and
 * their content; nor, through a trigger, anything they are read from): a commit of these alone
 * leaves the cache as it is. A token refresh commits only these (its rotation and audit event), so
 * the next refresh of any family finds its client, family and grants kept (issue 27). Any other
 * writer, or one added later and not listed, clears the cache at its commit: a wrong omission
 * here costs reads, a wrong entry would serve a stale record.
 */
export const KEEPS_RECORDS: ReadonlySet<string> = new Set<keyof StoreWriter>([
  'appendAudit',
  'appendChange',
  'insertRefreshToken',
  'rotateRefreshToken',
  'insertSession',
  'deleteSession',
]);
