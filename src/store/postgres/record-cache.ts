import { AsyncLocalStorage } from 'node:async_hooks';
import { deepFreeze } from '../deep-freeze.ts';
import type { StoreReader } from '../store.ts';

/**
 * What every instance on a PostgreSQL store keeps in memory (issue 23, item 3): grants, clients,
 * settings, signing keys and profiles with their parsed content, each read once and kept until a
 * notice says it changed. Migration 0007's triggers send the notices (the grant, client, setting or
 * profile that changed, from any instance or process), PostgreSQL delivers them to every listening
 * connection when the writing transaction commits, and `drop` forgets what they name.
 *
 * A read looks in memory only after a round trip on the listening connection that began after it
 * did, so every notice committed before the request arrived has been handled: a revocation through
 * one instance fails the very next request on every other (#barrier). Under load, the reads of a
 * moment share one round trip.
 *
 * A notice can only be missed while the listening connection is down: then nothing is kept at all
 * (every read goes to the database), and when it is back everything is dropped before anything is
 * kept again (`live`). A read that started before a notice and ends after it does not keep what it
 * read (the generation moved), so a stale row can not be stored behind a drop.
 *
 * Entries are deep-frozen: every reader shares them, as on SQLite (sqlite/record-cache.ts).
 */
/** How long a request's barrier covers its reads (a stream's later reads take their own). */
const FRESH_MS = 1000;

export class NoticedCache {
  /** Groups of entries, each dropped whole by one notice: 'g<grant>', 'p<profile>', 'S<subject>'… */
  readonly #groups = new Map<string, Map<string, unknown>>();
  #size = 0;
  #live = false;
  #generation = 0;
  readonly #sync: () => Promise<void>;
  #inFlight: Promise<void> | undefined;
  /** The request running (`fresh`), whose barrier covers its reads until `until`. */
  readonly #synced = new AsyncLocalStorage<{ readonly until: number }>();
  #next: Promise<void> | undefined;

  /** `sync`: one round trip on the listening connection (change-notices.ts#ChangeListener.sync). */
  constructor(sync: () => Promise<void>) {
    this.#sync = sync;
  }

  /** The listening connection is up and listening (again): start keeping, from nothing. */
  up(): void {
    this.#clear();
    this.#live = true;
  }

  /** The listening connection is down: a notice may be missed, so keep nothing until `up`. */
  down(): void {
    this.#live = false;
    this.#clear();
  }

  /** Everything: after this instance's own commits that wrote cached tables. */
  dropAll(): void {
    this.#clear();
  }

  /** A notice of migration 0007's triggers. */
  drop(notice: string): void {
    this.#generation++;
    const kind = notice[0];
    const id = notice.slice(1);
    if (kind === 'p') {
      const [profileId = '', subjectId = ''] = id.split('\n');
      this.#dropGroup(`p${profileId}`);
      this.#dropGroup(`S${subjectId}`);
    } else if (kind === 'c') {
      this.#dropGroup(notice);
      this.#dropGroup('C');
    } else {
      this.#dropGroup(notice);
    }
  }

  /**
   * Runs `fn` (a request) after one barrier taken now: its reads then need none of their own,
   * since every notice committed before the request began has been handled. For a second at most:
   * a long stream's later reads take their own again.
   */
  async fresh<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.#live) return fn();
    const synced = await this.#barrier().then(
      () => true,
      () => false,
    );
    return synced ? this.#synced.run({ until: performance.now() + FRESH_MS }, fn) : fn();
  }

  /** The value of `key` in `group`, kept from an earlier read when nothing dropped it since. */
  async read<T>(group: string, key: string, load: () => Promise<T>): Promise<T> {
    if (!this.#live) return load();
    // Every notice committed before the read (or its request, `fresh`) began is handled before it
    // looks (#barrier): a row changed on another instance just before this request is never
    // answered from memory.
    const request = this.#synced.getStore();
    if (request === undefined || performance.now() > request.until) {
      const synced = await this.#barrier().then(
        () => true,
        () => false,
      );
      if (!synced) return load();
    }
    if (!this.#live) return load();
    const entries = this.#groups.get(group);
    if (entries?.has(key)) return entries.get(key) as T;
    const generation = this.#generation;
    const value = await load();
    if (!this.#live || generation !== this.#generation) return value;
    if (this.#size >= 20_000) this.#clear();
    let into = this.#groups.get(group);
    if (into === undefined) {
      into = new Map();
      this.#groups.set(group, into);
    }
    into.set(key, deepFreeze(value));
    this.#size++;
    return value;
  }

  /**
   * Resolves once every notice committed before it was called has reached this instance: a round
   * trip on the listening connection, after which PostgreSQL has sent it every notification
   * committed before the query began (a listening backend delivers what is queued for it before it
   * reports the query done). Reads waiting at once share one round trip; a read arriving while
   * one is under way waits for the next, which starts after it.
   */
  #barrier(): Promise<void> {
    if (this.#next !== undefined) return this.#next;
    if (this.#inFlight === undefined) return this.#start();
    const next = this.#inFlight.then(
      () => this.#start(),
      () => this.#start(),
    );
    this.#next = next;
    return next;
  }

  #start(): Promise<void> {
    this.#next = undefined;
    const trip = this.#sync().finally(() => {
      if (this.#inFlight === trip) this.#inFlight = undefined;
    });
    this.#inFlight = trip;
    return trip;
  }

  #dropGroup(group: string): void {
    const entries = this.#groups.get(group);
    if (entries === undefined) return;
    this.#size -= entries.size;
    this.#groups.delete(group);
  }

  #clear(): void {
    this.#generation++;
    this.#groups.clear();
    this.#size = 0;
  }
}

/**
 * The readers kept in a NoticedCache, each with the group its result belongs to (the notice that
 * drops it) and its key within the group. Readers not listed always go to the database.
 */
export const CACHED_READERS: {
  readonly [K in keyof StoreReader]?: (...args: Parameters<StoreReader[K]>) => readonly [string, string];
} = {
  getGrant: (grantId) => [`g${grantId}`, ''],
  getClient: (clientId) => [`c${clientId}`, ''],
  listClients: () => ['C', ''],
  getSetting: (name) => [`s${name}`, ''],
  listSigningKeys: () => ['k', ''],
  getProfile: (profileId) => [`p${profileId}`, 'profile'],
  getProfileContent: (profileId) => [`p${profileId}`, 'content'],
  listClaims: (profileId) => [`p${profileId}`, 'claims'],
  listModifiers: (profileId) => [`p${profileId}`, 'modifiers'],
  listClaimChanges: (profileId) => [`p${profileId}`, 'changes'],
  getProfileBySubject: (subjectId) => [`S${subjectId}`, ''],
};
