import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

// The worker thread of checkpointer.ts: checkpoints the WAL of one database file on its own
// connection every `intervalMs`, so that the copy back into the database file and its fsync never
// block the provider's event loop. PASSIVE: never waits for a writer or a reader; what it cannot
// copy now it copies next time. Stops (closing its connection) on the message 'stop'.
//
// A passive checkpoint copies pages back but never rewinds the WAL: SQLite starts writing it from
// the beginning again only when a checkpoint has caught up at the moment a writer begins, which a
// store written without pause (ppx seed --scale: 19 GB of WAL at 5,000 subjects) may never see.
// So once the WAL holds WAL_LIMIT_FRAMES, a TRUNCATE checkpoint waits (busy_timeout) for the
// writer and the readers to let it, then empties the file. The passive ones before it have copied
// nearly everything, so the wait is short. A writer that never pauses long enough (one
// transaction right after the other) keeps it busy: then the worker asks the writer's thread
// ('truncate'), which runs it between two of its own transactions (checkpointer.ts).

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
/** 16,384 frames: 64 MiB of 4 KiB pages. */
const WAL_LIMIT_FRAMES = 16_384;

const timer = setInterval(() => {
  try {
    const passive = checkpoint.get() as { log: number } | undefined;
    if ((passive?.log ?? 0) >= WAL_LIMIT_FRAMES) {
      const done = truncate.get() as { busy: number } | undefined;
      if (done?.busy !== 0) parentPort?.postMessage('truncate');
    }
  } catch (error) {
    // Busy or locked: the next tick tries again (the writer's thread empties the WAL meanwhile).
    // Anything else ends the worker; the store then goes back to checkpointing on its own
    // connection.
    if (!/busy|locked/i.test(String(error))) throw error;
    parentPort?.postMessage('truncate');
  }
}, intervalMs);

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  try {
    checkpoint.get();
  } finally {
    db.close();
    parentPort?.postMessage('stopped');
    parentPort?.close();
  }
});
