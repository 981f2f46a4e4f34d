import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Checkpointer } from '../../src/store/sqlite/checkpointer.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { auditEvent, subjectId } from './fixtures.ts';

// Checkpoints move to a worker thread once a store has committed a while (sqlite/checkpointer.ts):
// the database file then still takes in what the WAL holds, though the writer no longer
// checkpoints, and nothing committed is lost across close and reopen.

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
        // Only the worker checkpoints now; it runs every 200 ms.
        let grown = false;
        for (let tries = 0; tries < 100 && !grown; tries++) {
          await sleep(100);
          grown = statSync(path).size > before;
        }
        assert.ok(grown, 'the database file never took in the WAL');
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
      let grown = false;
      for (let tries = 0; tries < 100 && !grown; tries++) {
        await sleep(100);
        grown = statSync(path).size > before;
      }
      assert.ok(grown, 'the worker never checkpointed');
      await checkpointer.stop();
      assert.equal(autoCheckpoint(), 1000);
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
      for (let i = 0; i < 500; i++) checkpointer.committed();
      assert.equal(autoCheckpoint(), 0);
      let restored = false;
      for (let tries = 0; tries < 100 && !restored; tries++) {
        await sleep(50);
        restored = autoCheckpoint() === 1000;
      }
      assert.ok(restored, 'the writer never took its checkpoints back');
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
    try {
      writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)');
      const checkpointer = new Checkpointer(path, writer);
      for (let i = 0; i < 500; i++) checkpointer.committed();
      const insert = writer.prepare('INSERT INTO t VALUES (?)');
      const wal = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      let largest = 0;
      // 200 transactions of about 1 MB, back to back but for a pause of a turn of the event
      // loop (the worker's messages arrive then): 200 MB written in all.
      for (let t = 0; t < 200; t++) {
        writer.exec('BEGIN IMMEDIATE');
        for (let i = 0; i < 250; i++) insert.run('x'.repeat(4000));
        writer.exec('COMMIT');
        checkpointer.committed();
        largest = Math.max(largest, wal());
        await sleep(1);
      }
      await checkpointer.stop();
      // The limit is 64 MiB of frames; a transaction or two may be written past it before the
      // next checkpoint empties the file.
      assert.ok(largest < 100 * 1024 * 1024, `the WAL grew to ${(largest / 1e6).toFixed(0)} MB`);
    } finally {
      writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
