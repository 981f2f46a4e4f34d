import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { RecordCache } from '../../src/store/sqlite/record-cache.ts';
import { StatementCache } from '../../src/store/sqlite/statement-cache.ts';
import { CommitMark, WalIndexHeader } from '../../src/store/sqlite/wal-index-header.ts';

// The record cache asks SQLite whether anything was committed (`PRAGMA data_version`) only when
// the WAL index header moved (wal-index-header.ts). What must hold: every commit, from any
// connection of any process, moves it; a header that cannot be trusted is never taken as unmoved.
describe('the WAL index header (is anything committed since the last look?)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ppx-wal-index-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  interface WalFile {
    readonly path: string;
    readonly db: DatabaseSync;
    readonly reader: DatabaseSync;
    readonly header: WalIndexHeader;
  }

  /**
   * A WAL file with a table, a writer, a read-only connection and a header; closed as
   * connections.ts closes a store's: the connections first, then the header (closing its
   * descriptor drops the process's locks on the -shm file).
   */
  function withWalFile(name: string, body: (file: WalFile) => void): void {
    const path = join(dir, name);
    const db = new DatabaseSync(path);
    db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)');
    const reader = new DatabaseSync(path, { readOnly: true });
    const header = new WalIndexHeader(path);
    try {
      body({ path, db, reader, header });
    } finally {
      reader.close();
      db.close();
      header.close();
    }
  }

  /** One read of a fresh header on `path`, which is then let go. */
  function readOnce(path: string): Buffer | undefined {
    const header = new WalIndexHeader(path);
    try {
      return header.read();
    } finally {
      header.close();
    }
  }

  it('stays put while only reads happen, and moves with every commit of another connection', () =>
    withWalFile('a.db', ({ db, reader, header }) => {
      const mark = new CommitMark(header);
      assert.equal(mark.unchanged(), false, 'the first look knows nothing yet');
      assert.equal(mark.unchanged(), true);
      reader.prepare('SELECT count(*) FROM t').get();
      assert.equal(mark.unchanged(), true, 'a read commits nothing');
      for (let i = 0; i < 3; i++) {
        db.prepare('INSERT INTO t VALUES (?)').run(i);
        assert.equal(mark.unchanged(), false, `commit ${i}`);
        assert.equal(mark.unchanged(), true);
      }
      // The WAL rewound to its start: the next commit writes the frames the last one wrote.
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      mark.unchanged();
      db.prepare('INSERT INTO t VALUES (?)').run(9);
      assert.equal(mark.unchanged(), false, 'a commit after a rewind');
      // A transaction that changes nothing: whatever it does to the header, the mark settles again.
      db.exec('BEGIN IMMEDIATE; UPDATE t SET x = x WHERE 0; COMMIT');
      mark.unchanged();
      assert.equal(mark.unchanged(), true);
    }));

  it('moves with a commit made by another process', () =>
    withWalFile('b.db', ({ path, db, header }) => {
      const mark = new CommitMark(header);
      mark.unchanged();
      assert.equal(mark.unchanged(), true);
      execFileSync(process.execPath, [
        '-e',
        `const { DatabaseSync } = require('node:sqlite');
         const db = new DatabaseSync(process.argv[1]);
         db.exec('PRAGMA busy_timeout = 5000; INSERT INTO t VALUES (1)');
         db.close();`,
        path,
      ]);
      assert.equal(mark.unchanged(), false);
      assert.equal(Number(db.prepare('SELECT count(*) AS n FROM t').get()?.['n']), 1);
    }));

  it('is not to be trusted when its two copies differ, it is not built, or there is no file', async () => {
    const torn = join(dir, 'torn.db');
    const both = Buffer.alloc(136);
    both[12] = 1;
    both[48 + 12] = 1;
    both[8] = 7; // iChange of the first copy only: a writer between its two copies
    await writeFile(`${torn}-shm`, both);
    assert.equal(readOnce(torn), undefined, 'copies differ');
    both[48 + 8] = 7;
    await writeFile(`${torn}-shm`, both);
    assert.ok(readOnce(torn), 'copies agree');
    both[12] = 0;
    both[48 + 12] = 0;
    await writeFile(`${torn}-shm`, both);
    assert.equal(readOnce(torn), undefined, 'not built');
    await writeFile(`${torn}-shm`, both.subarray(0, 60));
    assert.equal(readOnce(torn), undefined, 'short');
    const none = new WalIndexHeader(join(dir, 'none.db'));
    try {
      assert.equal(none.read(), undefined, 'no file');
      const mark = new CommitMark(none);
      assert.equal(mark.unchanged(), false);
      assert.equal(mark.unchanged(), false, 'never unchanged without a header');
    } finally {
      none.close();
    }
  });

  it('lets the record cache ask SQLite only after a commit, and never serve a record a commit changed', () =>
    withWalFile('cache.db', ({ db, reader, header }) => {
      db.prepare('INSERT INTO t VALUES (?)').run(1);
      const sql = new StatementCache(reader);
      let asked = 0;
      const get = sql.get.bind(sql);
      sql.get = (statement: string) => {
        if (statement.startsWith('PRAGMA data_version')) asked++;
        return get(statement);
      };
      const cache = new RecordCache(sql, header);
      let loads = 0;
      const value = () =>
        cache.read('t', () => {
          loads++;
          return { x: Number(reader.prepare('SELECT max(x) AS x FROM t').get()?.['x']) };
        })?.x;
      // Outside a request every read checks: with nothing committed, without a word to SQLite.
      assert.equal(value(), 1);
      assert.equal(value(), 1);
      assert.equal(value(), 1);
      assert.deepEqual({ asked, loads }, { asked: 1, loads: 1 });
      db.prepare('INSERT INTO t VALUES (?)').run(2);
      assert.equal(value(), 2, 'the commit is seen at the next read');
      assert.equal(value(), 2);
      assert.deepEqual({ asked, loads }, { asked: 2, loads: 2 });
    }));

  it('shares one descriptor of the -shm file between headers, and closes it with the last', () => {
    // Closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's
    // own included: a store closed beside another on the same file must not close the other's.
    const path = join(dir, 'shared.db');
    const shmDescriptors = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === `${path}-shm`;
        } catch {
          return false;
        }
      }).length;
    withWalFile('shared.db', ({ header: b }) => {
      const a = new WalIndexHeader(path);
      assert.ok(b.read());
      const withOne = shmDescriptors();
      assert.ok(a.read());
      assert.equal(shmDescriptors(), withOne, 'one descriptor for both headers');
      a.close();
      assert.equal(shmDescriptors(), withOne, 'kept while a header still uses it');
      assert.ok(b.read());
      assert.equal(a.read(), undefined, 'a closed header reads nothing');
    });
    assert.equal(shmDescriptors(), 0, 'closed with the last header, after the connections');
  });
});
