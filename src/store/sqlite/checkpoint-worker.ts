import { statSync } from 'node:fs';
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
// So once the WAL holds WAL_LIMIT_FRAMES, a RESTART checkpoint takes the write lock, copies what
// is left, and waits for the readers to read from the database file alone: the writer's next
// transaction then writes the WAL from its beginning, and the file stays at about that size
// (cutting it, a TRUNCATE, is kept for a file that grew past FILE_LIMIT_BYTES).
//
// While it holds the lock no transaction can begin. The store's writer used to wait for it in
// SQLite's busy handler, a sleep on the event loop: every request of the process stopped, 50 to
// 85 ms each time under a burst of token refreshes (a TRUNCATE then, whose cutting of the file
// was most of it). Now the worker says so first (`emptying`, shared with checkpointer.ts), and the
// store's writes wait for it off the event loop; two more passive rounds before it leave the
// RESTART little to copy; 6 to 20 ms (docs/benchmarks.md, "Refresh rotations, third pass").
//
// A writer that never pauses long enough (one transaction right after the other) keeps it busy:
// then the worker asks the writer's thread ('truncate'), which empties the file itself between
// two of its own transactions (checkpointer.ts).

const { path, intervalMs, emptying } = workerData as {
  path: string;
  intervalMs: number;
  /** 1 while a RESTART runs: the store's writes wait for it off the event loop (checkpointer.ts). */
  emptying: Int32Array;
};
const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
/** 16,384 frames: 64 MiB of 4 KiB pages. */
const WAL_LIMIT_FRAMES = 16_384;
/**
 * A WAL file larger than this (written faster than this thread could rewind it: one large
 * transaction after the other, as `ppx seed --scale` writes) is cut back to nothing (TRUNCATE)
 * rather than rewound and kept at that size.
 */
const FILE_LIMIT_BYTES = 128 * 1024 * 1024;
/** The WAL's length in frames when a RESTART last went through: nothing to do until a write. */
let restartedAt = -1;

const timer = setInterval(() => {
  try {
    const passive = checkpoint.get() as { log: number } | undefined;
    const log = passive?.log ?? 0;
    if (log < WAL_LIMIT_FRAMES || log === restartedAt) return;
    // Each copies what was written during the one before, so that the RESTART itself, which holds
    // the lock, copies a few milliseconds' worth.
    checkpoint.get();
    checkpoint.get();
    const large = (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > FILE_LIMIT_BYTES;
    // Said before asking for the lock: the writer begins no new transaction, so the wait below is
    // for the one under way only, and its next one waits without blocking its thread.
    Atomics.store(emptying, 0, 1);
    let done: { busy: number; log: number } | undefined;
    try {
      done = (large ? truncate : restart).get() as { busy: number; log: number } | undefined;
    } finally {
      Atomics.store(emptying, 0, 0);
      Atomics.notify(emptying, 0);
    }
    if (done?.busy === 0) restartedAt = done.log;
    else parentPort?.postMessage('truncate');
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
