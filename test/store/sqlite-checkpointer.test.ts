import assert from 'node:assert/strict';
import { statSync, watch } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { Checkpointer } from '../../src/store/sqlite/checkpointer.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { auditEvent, subjectId } from '../support/store-records.ts';

// Checkpoints move to a worker thread once a store has committed a while, or written a WAL near
// the size SQLite would checkpoint at (sqlite/checkpointer.ts):
// the database file then still takes in what the WAL holds, though the writer no longer
// checkpoints, and nothing committed is lost across close and reopen.

/** Resolves once the file at `path` is larger than `size`: on the file's own change events. */
function grows(path: string, size: number): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(path, () => check());
    const check = () => {
      if (statSync(path).size <= size) return;
      watcher.close();
      resolve();
    };
    check();
  });
}

/** Resolves once the next worker thread this process starts has exited, and its exit was handled. */
function nextWorkerExit(): Promise<void> {
  return new Promise((resolve) => {
    process.once('worker', (worker: Worker) => worker.once('exit', () => setImmediate(resolve)));
  });
}

describe('background WAL checkpoints', () => {
  it('copy the WAL into the database file from the worker, losing nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ppx-checkpoint-'));
    const path = join(dir, 'ppx.db');
    try {
      const store = await openSqliteStore(path);
      const subject = subjectId();
      try {
        // 600 commits: past the point where the worker takes over.
        for (let i = 0; i < 600; i++) await store.appendAudit([auditEvent({ subject_id: subject })]);
        const before = statSync(path).size;
        const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
        for (let i = 0; i < 50; i++) {
          await store.appendAudit(
            Array.from({ length: 40 }, (_, j) =>
              auditEvent({ subject_id: subject, claim_keys: [...keys, `${i}-${j}`] }),
            ),
          );
        }
        // Only the worker checkpoints now (every 200 ms): the file grows when it has. Never
        // growing is a failure by the test's timeout.
        await grows(path, before);
      } finally {
        await store.close();
      }
      const reopened = await openSqliteStore(path);
      try {
        const first = await reopened.listAudit({ subject_id: subject, limit: 500, order: 'newest' });
        assert.equal(first.events.length, 500);
        assert.ok(first.events[0]?.claim_keys.includes('49-39'));
      } finally {
        await reopened.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("are the worker's alone once it runs, and the writer's again after it stops", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ppx-checkpoint-'));
    const path = join(dir, 'raw.db');
    const writer = new DatabaseSync(path);
    try {
      writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)');
      const autoCheckpoint = () =>
        Number(writer.prepare('PRAGMA wal_autocheckpoint').get()?.['wal_autocheckpoint']);
      const checkpointer = new Checkpointer(path, writer);
      for (let i = 0; i < 499; i++) checkpointer.committed();
      assert.equal(autoCheckpoint(), 1000);
      checkpointer.committed();
      assert.equal(autoCheckpoint(), 0);
      const before = statSync(path).size;
      const insert = writer.prepare('INSERT INTO t VALUES (?)');
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(500));
      // The worker checkpointed (the test's timeout, if it never does).
      await grows(path, before);
      await checkpointer.stop();
      assert.equal(autoCheckpoint(), 1000);
    } finally {
      writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('move to the worker before 500 commits once the WAL is large, before the writer checkpoints itself', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ppx-checkpoint-'));
    const path = join(dir, 'raw.db');
    const writer = new DatabaseSync(path);
    try {
      writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)');
      const autoCheckpoint = () =>
        Number(writer.prepare('PRAGMA wal_autocheckpoint').get()?.['wal_autocheckpoint']);
      const checkpointer = new Checkpointer(path, writer);
      checkpointer.committed();
      assert.equal(autoCheckpoint(), 1000, 'a small WAL starts no worker');
      // About 800 pages in one transaction: past three quarters of 1,000, short of SQLite's own
      // checkpoint.
      const insert = writer.prepare('INSERT INTO t VALUES (?)');
      writer.exec('BEGIN');
      for (let i = 0; i < 800; i++) insert.run('x'.repeat(4000));
      writer.exec('COMMIT');
      checkpointer.committed();
      assert.equal(autoCheckpoint(), 0, 'the second commit handed the checkpoints over');
      await checkpointer.stop();
    } finally {
      writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('hand checkpoints back to the writer when the worker fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ppx-checkpoint-'));
    const writer = new DatabaseSync(join(dir, 'raw.db'));
    try {
      writer.exec('PRAGMA journal_mode = WAL');
      const autoCheckpoint = () =>
        Number(writer.prepare('PRAGMA wal_autocheckpoint').get()?.['wal_autocheckpoint']);
      // The worker is pointed at a directory: it cannot open it as a database and fails.
      const checkpointer = new Checkpointer(dir, writer);
      const workerEnded = nextWorkerExit();
      for (let i = 0; i < 500; i++) checkpointer.committed();
      assert.equal(autoCheckpoint(), 0);
      await workerEnded;
      assert.equal(autoCheckpoint(), 1000, 'the writer never took its checkpoints back');
      // Stopped for good: more commits start no other worker.
      for (let i = 0; i < 600; i++) checkpointer.committed();
      assert.equal(autoCheckpoint(), 1000);
      await checkpointer.stop();
    } finally {
      writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keep the WAL bounded while one transaction follows another without pause', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ppx-checkpoint-'));
    const path = join(dir, 'raw.db');
    const writer = new DatabaseSync(path);
    // As the store's writer: wait for the worker's checkpoint rather than fail.
    writer.exec('PRAGMA busy_timeout = 5000');
    const checkpointer = new Checkpointer(path, writer);
    try {
      writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)');
      for (let i = 0; i < 500; i++) checkpointer.committed();
      const insert = writer.prepare('INSERT INTO t VALUES (?)');
      const wal = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      // Transactions of about 1 MB, back to back but for a turn of the event loop (the worker's
      // messages arrive then). Without a limit a WAL only grows while writes go on (19 GB once,
      // seeding). With it, the worker rewinds it once past 64 MiB (the file keeps its size, and
      // is written again from its start) and cuts a file past 128 MiB; a worker starved of the
      // CPU on a loaded machine leaves it to the writer, which cuts it past 256 MiB
      // (checkpointer.ts).
      const limit = 64 * 1024 * 1024;
      const transactions = 700;
      let largest = 0;
      for (let t = 0; t < transactions; t++) {
        // As the store's write mutex: wait, off the event loop, while the worker rewinds the WAL.
        await checkpointer.whileEmptying();
        writer.exec('BEGIN IMMEDIATE');
        for (let i = 0; i < 250; i++) insert.run('x'.repeat(4000));
        writer.exec('COMMIT');
        checkpointer.committed();
        largest = Math.max(largest, wal());
        // A turn of the event loop, in which the worker's messages arrive.
        await nextTurn();
      }
      const mb = (n: number) => (n / 1e6).toFixed(0);
      const written = transactions * 250 * 4000;
      // It reached the limit (so the test saw the rewinding), and stayed far below what was
      // written (it grew to 1 GB once, when only the worker's request could empty it and the
      // machine was busy).
      assert.ok(largest > 0.9 * limit, `the WAL never reached the limit (${mb(largest)} MB)`);
      assert.ok(
        largest < written / 2,
        `the WAL was never rewound: it reached ${mb(largest)} MB of ${mb(written)} MB written`,
      );
    } finally {
      await checkpointer.stop();
      writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
  it("are emptied by the writer itself when the worker's rewind cannot get through", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ppx-checkpoint-'));
    const path = join(dir, 'raw.db');
    const writer = new DatabaseSync(path);
    // Short: the writer's own TRUNCATE is tried after each commit, and must not block long.
    writer.exec('PRAGMA busy_timeout = 50');
    const reader = new DatabaseSync(path);
    const asked: string[] = [];
    process.once('worker', (worker: Worker) => worker.on('message', (m: string) => asked.push(m)));
    const checkpointer = new Checkpointer(path, writer);
    const wal = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    let row: StatementSync | undefined;
    const insert = async () => {
      row ??= writer.prepare('INSERT INTO t VALUES (?)');
      // The worker may say it is emptying, and take the lock, between whileEmptying() and this
      // BEGIN (the store's writes wait 5 s in SQLite's busy handler there; this writer 50 ms,
      // while the RESTART waits a second for the reader): then wait for it and begin again.
      for (let tries = 0; ; tries++) {
        try {
          writer.exec('BEGIN IMMEDIATE');
          break;
        } catch (error) {
          if (tries >= 100 || !/locked|busy/i.test(String(error))) throw error;
          await (checkpointer.whileEmptying() ?? new Promise((resolve) => setTimeout(resolve, 20)));
        }
      }
      for (let i = 0; i < 250; i++) row.run('x'.repeat(4000));
      writer.exec('COMMIT');
      checkpointer.committed();
    };
    try {
      writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)');
      for (let i = 0; i < 500; i++) checkpointer.committed();
      // A reader that keeps its snapshot: the worker's RESTART waits for it in vain and asks the
      // writer's thread ('truncate').
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM t').get();
      for (let t = 0; t < 70; t++) {
        await checkpointer.whileEmptying();
        await insert();
        await nextTurn();
      }
      for (let waited = 0; !asked.includes('truncate'); waited += 50) {
        assert.ok(waited < 30_000, 'the worker never asked the writer to empty the WAL');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      reader.exec('COMMIT');
      // 70 MB: the worker itself would only rewind a WAL of this size, never cut the file. The
      // writer cuts it after one of its next commits (one the worker's checkpoint answers busy
      // is tried again after the next).
      for (let t = 0; t < 100 && wal() > 0; t++) {
        await checkpointer.whileEmptying();
        await insert();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(wal(), 0, 'the writer never emptied the WAL');
    } finally {
      await checkpointer.stop();
      reader.close();
      writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
