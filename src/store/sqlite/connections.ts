import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { cacheSize, configure } from './connection-settings.ts';
import { migrate } from './migrate.ts';
import { type SqliteQueries, sqliteQueries } from './queries.ts';
import { WalIndexHeader } from './wal-index-header.ts';

/** A store's connections to its file, and the queries of each. */
export interface Connections {
  /** The one write connection: writes, transactions, and reads while no transaction is open on it. */
  readonly writer: DatabaseSync;
  /** A second, read-only connection; the writer itself on `:memory:`. */
  readonly reader: DatabaseSync;
  /** Writes and transactions, on the writer, without caches (they could outlive a rollback). */
  readonly write: SqliteQueries;
  /** Committed reads on the read connection, with caches. */
  readonly read: SqliteQueries;
  /** Committed reads on the writer between transactions, with caches of their own. */
  readonly warm: SqliteQueries;
  /** The queries a read outside a transaction uses now: `warm` unless a transaction is open. */
  readonly committed: () => SqliteQueries;
  /** Runs a transaction-control statement (BEGIN, SAVEPOINT, …) on the writer, prepared once. */
  readonly control: (sql: string) => void;
  /**
   * BEGIN IMMEDIATE on the writer. `small`: a transaction whose every savepoint changes a few pages
   * (refresh rotations, audit appends), whose savepoint journal is then kept in memory.
   */
  readonly begin: (small: boolean) => void;
  /** Closes both connections (the reader first, when it is one of its own), then the WAL index header. */
  readonly close: () => void;
}

function isMemory(path: string): boolean {
  return path === ':memory:' || path === '' || path.includes('mode=memory');
}

/** The write connection, configured and migrated, and the read connection (none on `:memory:`). */
function open(path: string): { writer: DatabaseSync; reader: DatabaseSync } {
  const writer = new DatabaseSync(path);
  try {
    configure(writer);
    migrate(writer);
    if (isMemory(path)) return { writer, reader: writer };
    const reader = new DatabaseSync(path, { readOnly: true });
    reader.exec('PRAGMA busy_timeout = 5000');
    cacheSize(reader);
    return { writer, reader };
  } catch (error) {
    writer.close();
    throw error;
  }
}

/**
 * Opens the connections of a store at `path` and the queries on them. Reads outside a transaction
 * go to the write connection whenever no transaction is open on it (node:sqlite is synchronous, so
 * that holds for the whole read), and to the read connection otherwise. Both see exactly the
 * committed data, but the write connection's page cache stays warm: every commit by another
 * connection (the group-committed audit log commits all the time) makes the read connection drop
 * its whole page cache at its next read, so that each point read went back to the file (issue 10:
 * grant, profile and version reads were a quarter of a small read). Its own content cache, like
 * the read connection's, only ever serves committed versions. A `:memory:` database exists only on
 * its one connection: there every read shares the write queries, and there is no cache.
 */
export function openConnections(path: string): Connections {
  const { writer, reader } = open(path);
  const write = sqliteQueries(writer);
  // The caches' freshness check reads the file's WAL index header first (wal-index-header.ts).
  const header = reader === writer ? undefined : new WalIndexHeader(path);
  const read = reader === writer ? write : sqliteQueries(reader, { cacheContent: true, header });
  const warm = reader === writer ? write : sqliteQueries(writer, { cacheContent: true, header });
  // The transaction-control statements, prepared once: a group commit runs several per
  // transaction (a savepoint each, and one per write), and exec parses its text every time.
  const prepared = new Map<string, StatementSync>();
  const control = (sql: string): void => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = writer.prepare(sql);
      prepared.set(sql, statement);
    }
    statement.run();
  };
  // SQLite keeps a savepoint's journal (the pages it changed, as they were before) in memory up to
  // 64 KiB, then in a temporary file for the rest of the transaction. A refresh rotation is two
  // savepoints of about fifteen pages, one past that now and then, and a group commit of them then
  // wrote every later one's pages to that file (two system calls a page: more than its WAL frames).
  // `temp_store = MEMORY` keeps the journal in memory whatever its size, and so is set only for
  // the transactions known to be small: a deleted profile's cascade would hold every page of its
  // claims. It is read when a transaction begins, and may only change outside one.
  let journalInMemory = false;
  return {
    writer,
    reader,
    write,
    read,
    warm,
    committed: () => (writer.isTransaction ? read : warm),
    control,
    begin(small) {
      if (small !== journalInMemory) {
        control(small ? 'PRAGMA temp_store = MEMORY' : 'PRAGMA temp_store = DEFAULT');
        journalInMemory = small;
      }
      control('BEGIN IMMEDIATE');
    },
    close() {
      if (reader !== writer) reader.close();
      writer.close();
      // After the connections: closing a descriptor of the -shm file drops the process's locks on it.
      header?.close();
    },
  };
}
