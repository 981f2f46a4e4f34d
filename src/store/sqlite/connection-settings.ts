import type { DatabaseSync } from 'node:sqlite';

/** The settings of every connection that writes to a store's file (connections.ts, audit-mover-worker.ts). */
export function configure(db: DatabaseSync): void {
  // WAL + synchronous=NORMAL: a committed transaction survives a process kill (only an OS crash or
  // power loss can drop the last commits). busy_timeout covers other processes on the same file.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  cacheSize(db);
}

/**
 * 64 MiB of page cache per connection instead of SQLite's 2 MiB (issue 23, item 5): at 10M claims
 * the B-trees a read and its audit append walk (the log and its five indexes, grants, claims) are
 * four to five levels deep and the appends and checkpoints cycle more pages through the cache, so
 * a small cache sends more page reads to the OS (a system call each). bench:scale, alternating
 * runs with and without: the 10M read cost 1.3-1.7x the 1k one in CPU per request without, 0.8-0.9x
 * with (docs/benchmarks.md, "Ten million claims"). A limit, not an allocation: a small store uses
 * what it holds.
 */
export function cacheSize(db: DatabaseSync): void {
  db.exec('PRAGMA cache_size = -65536');
}
