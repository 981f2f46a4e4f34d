import { Worker } from 'node:worker_threads';
import type { JournalPart } from './journal-lines.ts';
import { workerExecArgv } from './worker-exec-argv.ts';

/**
 * Events moved on the event loop before a store hands its moves to a thread: a store that writes
 * little (a test, a `ppx` command) never starts one; a provider under load does within a second.
 */
const EVENTS_BEFORE_WORKER = 2000;
/**
 * A move of fewer events stays on the event loop (under 3 ms of inserts): handing it over costs a
 * file closed and opened, a wake-up of the thread and the caches a commit of another connection
 * empties, and a lone client (a move of 150 to 300 events every 50 ms) lost 5 % of its reads to
 * that in a paired run, where 50 connections (600 to 1,000 a move) gained 4 %
 * (docs/benchmarks.md, "The journal's move on a thread, second build").
 */
const EVENTS_TO_MOVE_AWAY = 400;

interface Reply {
  readonly id: number;
  readonly ok: boolean;
}

/**
 * Moves the audit journal's events into the database on a worker thread with its own connection
 * (audit-mover-worker.ts), so that their inserts, 7 to 10 µs an event, no longer stop the event
 * loop: under load a move of 600 to 900 events did, for 5 to 9 ms every 60 ms, and that was much
 * of a small read's p99 (docs/benchmarks.md, "The journal's move on a thread, second build").
 *
 * The journal calls `move` with the store's write mutex held, and keeps it until the promise
 * settles, so the store's own writes wait for a move without blocking the event loop, and never
 * meet the worker's transaction in SQLite's busy handler. The thread starts after
 * EVENTS_BEFORE_WORKER events were moved on the event loop. If it fails, moves go back to the
 * event loop for good: `move` answers undefined.
 */
export class AuditMover {
  readonly #path: string;
  readonly #eventsBeforeWorker: number;
  readonly #eventsToMoveAway: number;
  #eventsMoved = 0;
  #worker: Worker | undefined;
  #ready = false;
  #failed = false;
  #nextId = 0;
  readonly #waiting = new Map<number, (committed: boolean) => void>();

  constructor(path: string, options: { readonly after?: number; readonly atLeast?: number } = {}) {
    this.#path = path;
    this.#eventsBeforeWorker = options.after ?? EVENTS_BEFORE_WORKER;
    this.#eventsToMoveAway = options.atLeast ?? EVENTS_TO_MOVE_AWAY;
  }

  /**
   * Appends the events of these journal files' parts (`count` of them) in one commit on the
   * thread, which then removes the files: true once committed, false when it failed (nothing
   * committed, or the thread ended not saying). Undefined while there is no thread to do it, or
   * when they are too few to be worth it: the caller moves them.
   */
  move(parts: readonly JournalPart[], count: number): Promise<boolean> | undefined {
    const worker = this.#worker;
    if (worker === undefined || !this.#ready || count < this.#eventsToMoveAway) {
      this.#eventsMoved += count;
      if (this.#eventsMoved >= this.#eventsBeforeWorker && worker === undefined && !this.#failed)
        this.#start();
      return undefined;
    }
    const id = this.#nextId++;
    return new Promise<boolean>((settle) => {
      // A move under way keeps the process alive, as a write of its own would: someone waits
      // for it (a listing, a write, the store's close).
      if (this.#waiting.size === 0) worker.ref();
      this.#waiting.set(id, settle);
      worker.postMessage({ id, parts });
    });
  }

  #start(): void {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./audit-mover-worker.ts', import.meta.url), {
        workerData: { path: this.#path },
        execArgv: workerExecArgv(),
      });
    } catch {
      // No thread here (flags it refuses, no resources): moves stay on the event loop.
      this.#failed = true;
      return;
    }
    this.#worker = worker;
    worker.on('message', (message: Reply | 'ready') => {
      if (message === 'ready') {
        this.#ready = true;
        return;
      }
      const settle = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      if (this.#waiting.size === 0) worker.unref();
      settle?.(message.ok);
    });
    worker.on('error', () => this.#fallBack());
    worker.on('exit', () => this.#fallBack());
    // Never keeps the process alive on its own (after the listeners: adding one refs the port).
    worker.unref();
  }

  /** The thread is gone: what it was asked and never answered failed; moves go back to the event loop. */
  #fallBack(): void {
    this.#worker = undefined;
    this.#ready = false;
    this.#failed = true;
    for (const settle of this.#waiting.values()) settle(false);
    this.#waiting.clear();
  }

  /** Ends the thread, closing its connection; call with no move under way, before closing the store. */
  async stop(): Promise<void> {
    this.#failed = true;
    const worker = this.#worker;
    if (worker === undefined) return;
    await new Promise<void>((resolve) => {
      // Kept alive until it has closed its connection, even when nothing else keeps the process.
      worker.ref();
      worker.once('exit', () => resolve());
      worker.postMessage('stop');
    });
  }
}
