import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

// The worker thread of checkpointer.ts: checkpoints the WAL of one database file on its own
// connection every `intervalMs`, so that the copy back into the database file and its fsync never
// block the provider's event loop. PASSIVE: never waits for a writer or a reader; what it cannot
// copy now it copies next time. Stops (closing its connection) on the message 'stop'.

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch (error) {
    // Busy or locked: the next tick tries again. Anything else ends the worker; the store then
    // goes back to checkpointing on its own connection.
    if (!/busy|locked/i.test(String(error))) throw error;
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
