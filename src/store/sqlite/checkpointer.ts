import { statSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { workerExecArgv } from './worker-exec-argv.ts';

/** How often the background checkpoint runs once it has started. */
const CHECKPOINT_EVERY_MS = 200;
/** Commits before moving the checkpoints to a worker thread: short-lived stores never start one. */
const COMMITS_BEFORE_WORKER = 500;
/** SQLite's default: checkpoint when the WAL reaches 1,000 pages (used until, and if, the worker fails). */
const AUTO_CHECKPOINT_PAGES = 1000;
/**
 * Or sooner, once the WAL holds three quarters of that (750 pages of 4 KiB, about 3 MB; a new
 * store's migrations leave 0.7 MB): a store written hard then hands its checkpoints over before
 * the writer's first one, not after 500 commits. Under a burst of token refreshes (about 64 pages
 * a commit) those 500 commits were some thirty checkpoints on the event loop, each copying 4 MB
 * back and fsyncing the file, in the first seconds of a provider (docs/benchmarks.md, "Issue 27").
 * A store that writes little (a test, the CLI) still never starts one.
 */
const WAL_BYTES_BEFORE_WORKER = ((AUTO_CHECKPOINT_PAGES * 3) / 4) * 4096;
/**
 * The WAL size past which the writer empties it itself (a TRUNCATE, the file cut to nothing),
 * between two of its transactions, without waiting to be asked: on a loaded machine the worker's
 * thread can be starved of the CPU while the writer commits back to back, and its request came
 * too late (a WAL of 1 GB in a test run beside browsers). Above the worker's own limits
 * (checkpoint-worker.ts: it rewinds the WAL at 64 MiB of frames, and cuts a file past 128 MiB),
 * so that only a starved worker leaves it to the writer: the TRUNCATE stops the event loop for 50
 * to 85 ms.
 */
const WAL_LIMIT_BYTES = 256 * 1024 * 1024;
/** Commits between two looks at the WAL's size (one stat call each). */
const SIZE_CHECK_EVERY = 64;
/**
 * The longest a write waits for the worker's RESTART before it goes on (and SQLite's busy
 * handler takes over): the worker's own busy_timeout, so a worker that died holding the flag
 * costs a write a second at most.
 */
const EMPTYING_WAIT_MS = 1000;

/**
 * Moves WAL checkpoints off the event loop. SQLite checkpoints on the committing connection once
 * the WAL passes 1,000 pages; with the audit log's group commit that is several times a second
 * under load, and each copies pages back into the database file and fsyncs it while every request
 * waits (issue 10: that was most of a small read's p99; docs/store.md). After
 * COMMITS_BEFORE_WORKER commits, or once the WAL holds WAL_BYTES_BEFORE_WORKER (a stat call a
 * commit until then), the writer stops checkpointing (`wal_autocheckpoint = 0`) and a
 * worker thread with its own connection checkpoints every CHECKPOINT_EVERY_MS instead. Durability
 * is the same: a commit is in the WAL either way. If the worker fails, the writer checkpoints
 * again as before.
 */
export class Checkpointer {
  readonly #path: string;
  readonly #writer: DatabaseSync;
  #commits = 0;
  #worker: Worker | undefined;
  #stopped = false;
  /** The worker could not empty a large WAL: the writer does, after its next commit. */
  #truncate = false;
  #sinceSizeCheck = 0;
  /**
   * 1 while the worker rewinds the WAL (checkpoint-worker.ts), shared with its thread. Its RESTART
   * (a TRUNCATE for a file past 128 MiB) holds the file's write lock for milliseconds (the last
   * pages copied back, an fsync, the readers waited for), and the writer's BEGIN IMMEDIATE used to
   * wait for it in SQLite's busy handler: a sleep on the event loop, every request of the process
   * stopped (docs/benchmarks.md, "Refresh rotations, third pass").
   */
  readonly #emptying = new Int32Array(new SharedArrayBuffer(4));

  constructor(path: string, writer: DatabaseSync) {
    this.#path = path;
    this.#writer = writer;
  }

  /**
   * Undefined when the writer may begin now; else a promise that settles once the worker has
   * rewound the WAL (or after EMPTYING_WAIT_MS): the store's write mutex waits on it before each
   * write (sqlite-store.ts), so the event loop goes on serving reads meanwhile.
   */
  whileEmptying(): Promise<unknown> | undefined {
    if (Atomics.load(this.#emptying, 0) === 0) return undefined;
    const wait = Atomics.waitAsync(this.#emptying, 0, 1, EMPTYING_WAIT_MS);
    if (!wait.async) return undefined;
    // A wait of Atomics keeps no process alive: a write waiting here, in a process with nothing
    // else to do (a `ppx` command), would end it with its write never made.
    const alive = setTimeout(() => undefined, EMPTYING_WAIT_MS);
    return wait.value.finally(() => clearTimeout(alive));
  }

  /** Called after every commit on the writer (outside any transaction). */
  committed(): void {
    if (this.#worker !== undefined && ++this.#sinceSizeCheck >= SIZE_CHECK_EVERY) {
      this.#sinceSizeCheck = 0;
      if (this.#walBytes() > WAL_LIMIT_BYTES) this.#truncate = true;
    }
    if (this.#truncate) {
      try {
        // Between two transactions of this thread, so no reader of this process is reading. A
        // checkpoint of the worker's under way answers busy (1) at once: then again after the
        // next commit, until one gets through.
        const done = this.#writer.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as
          | { busy?: number }
          | undefined;
        if (done?.busy === 0) this.#truncate = false;
      } catch {
        // Locked by another process: the worker asks again.
        this.#truncate = false;
      }
    }
    if (this.#worker !== undefined || this.#stopped) return;
    this.#commits += 1;
    if (this.#commits >= COMMITS_BEFORE_WORKER || this.#walBytes() >= WAL_BYTES_BEFORE_WORKER) this.#start();
  }

  /** The WAL file's size now (one stat call). */
  #walBytes(): number {
    return statSync(`${this.#path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  }

  #start(): void {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), {
        workerData: { path: this.#path, intervalMs: CHECKPOINT_EVERY_MS, emptying: this.#emptying },
        execArgv: workerExecArgv(),
      });
    } catch {
      // No thread here: the writer goes on checkpointing on its own connection.
      this.#stopped = true;
      return;
    }
    this.#worker = worker;
    this.#writer.exec('PRAGMA wal_autocheckpoint = 0');
    worker.on('message', (message) => {
      if (message === 'truncate') this.#truncate = true;
    });
    worker.on('error', () => this.#fallBack());
    worker.on('exit', () => this.#fallBack());
    // Never keeps the process alive on its own. After the listeners: adding a 'message' listener
    // refs the worker again, and a process that never closed its store then never ended.
    worker.unref();
  }

  #fallBack(): void {
    if (this.#worker === undefined) return;
    this.#worker = undefined;
    // A worker that ended in the middle of a RESTART holds no lock any more: no write waits for it.
    Atomics.store(this.#emptying, 0, 0);
    Atomics.notify(this.#emptying, 0);
    // Stopped for good, or back to checkpointing on the writer's own connection.
    this.#stopped = true;
    if (this.#writer.isOpen) this.#writer.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  }

  /** Ends the worker after one last checkpoint; call before closing the writer. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const worker = this.#worker;
    if (worker === undefined) return;
    await new Promise<void>((resolve) => {
      // Kept alive until its last checkpoint, even when nothing else keeps the process.
      worker.ref();
      worker.once('exit', () => resolve());
      worker.on('message', (message) => {
        if (message === 'stopped') void worker.terminate();
      });
      worker.postMessage('stop');
    });
  }
}
