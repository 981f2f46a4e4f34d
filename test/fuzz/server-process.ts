import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

// The server under fuzz is `ppx serve` in a process of its own, as an operator runs it: a crash
// is an exit the fuzzer sees (not an exception inside the fuzzer), its memory is its own
// (/proc/PID/status), and what it logs as an internal error arrives on its stderr. It runs with
// Node's --trace-gc, which prints the heap in use after every collection: after a full one
// (Mark-Compact) that is what is live, the measure a leak moves.

const BIN = new URL('../../bin/ppx.js', import.meta.url).pathname;

export interface ServedProvider {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Lines the server wrote on stderr (internal errors only: access lines go to stdout). */
  readonly errors: string[];
  /** Set when the process ended (by itself: a crash; or by stop()). */
  exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Resident set size now, in bytes (undefined once gone). */
  rss(): number | undefined;
  /**
   * The heap in use after each full collection since the last call, in bytes, with the isolate
   * it is of (the main thread's, or a worker's: the SQLite store checkpoints in a worker).
   */
  liveHeaps(): { readonly isolate: string; readonly bytes: number }[];
  /**
   * A full collection now (SIGUSR2: Node's --heapsnapshot-signal, whose snapshot collects all
   * garbage first; the snapshot goes to a file beside stdout's), and the live heaps it left, as
   * liveHeaps gives them. The collections that happen along the way fall where the inputs in
   * flight put them: the one made after the last input says what stayed.
   */
  collectNow(): Promise<{ readonly isolate: string; readonly bytes: number }[]>;
  /** CPU time used so far (user + system), in seconds (undefined once gone). */
  cpuSeconds(): number | undefined;
  /** SIGTERM, then the exit code (a graceful stop exits 0). */
  stop(): Promise<number | null>;
}

export interface ServeOptions {
  /** Where the server's stdout goes (its access log and the --trace-gc lines). */
  readonly stdout: string;
  readonly port: number;
  readonly base: string;
  readonly db: string;
  readonly databaseUrl?: string;
}

export async function serve(options: ServeOptions): Promise<ServedProvider> {
  const args = [
    BIN,
    'serve',
    '--db',
    options.db,
    '--port',
    String(options.port),
    '--host',
    '127.0.0.1',
    '--base-url',
    options.base,
    '--rate-limit',
    '0',
    '--enable-signup',
    ...(options.databaseUrl ? ['--database-url', options.databaseUrl] : []),
  ];
  // stdout (one access line per request) goes to a file: a pipe the fuzzer had to drain would
  // pace the server by the fuzzer's event loop. The fuzzer reads the GC lines from it as it grows.
  // PPX_FUZZ_SERVER_NODE_OPTIONS: more Node flags for the server alone (docs/fuzzing.md).
  const nodeOptions = process.env['PPX_FUZZ_SERVER_NODE_OPTIONS'];
  const out = openSync(options.stdout, 'a');
  const child = spawn(
    process.execPath,
    [
      '--trace-gc',
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${dirname(options.stdout)}`,
      ...(nodeOptions ? nodeOptions.split(' ') : []),
      ...args,
    ],
    { stdio: ['ignore', out, 'pipe'] },
  );
  closeSync(out);
  const gcLog = openSync(options.stdout, 'r');
  let gcOffset = 0;
  let gcPartial = '';
  const chunk = Buffer.alloc(1 << 20);
  const errors: string[] = [];
  let partial = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (errors.length < 500) errors.push(line);
  });
  const served: ServedProvider = {
    child,
    pid: child.pid!,
    errors,
    exited: undefined,
    rss() {
      if (served.exited) return undefined;
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) * 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    liveHeaps() {
      const found: { isolate: string; bytes: number }[] = [];
      for (;;) {
        const n = readSync(gcLog, chunk, 0, chunk.length, gcOffset);
        if (n === 0) break;
        gcOffset += n;
        const lines = (gcPartial + chunk.subarray(0, n).toString('latin1')).split('\n');
        gcPartial = lines.pop() ?? '';
        for (const line of lines) {
          // `[pid:isolate]  200 ms: Mark-Compact 47.3 (105.5) -> 11.8 (141.5) MB, …`: in use
          // before -> after, in MB (`Mark-Compact (reduce) …` for one that collects all it can).
          const m =
            /^\[\d+:(0x[0-9a-f]+)\].* Mark-Compact (?:\(reduce\) )?[\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(
              line,
            );
          if (m) found.push({ isolate: m[1]!, bytes: Number(m[2]) * 1024 * 1024 });
        }
      }
      return found;
    },
    async collectNow() {
      const found: { isolate: string; bytes: number }[] = [];
      if (served.exited) return found;
      child.kill('SIGUSR2');
      // Its lines come once the snapshot is written (a second or so); the main thread's last.
      const until = performance.now() + 15_000;
      while (performance.now() < until && !served.exited) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found.push(...served.liveHeaps());
        const snapshots = readdirSync(dirname(options.stdout)).filter((f) => f.endsWith('.heapsnapshot'));
        if (snapshots.length > 0 && found.length > 0) {
          for (const f of snapshots) rmSync(join(dirname(options.stdout), f), { force: true });
          break;
        }
      }
      return found;
    },
    cpuSeconds() {
      if (served.exited) return undefined;
      try {
        // /proc/PID/stat: fields 14 and 15 (utime, stime) in clock ticks, after the `(comm)` field.
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        return undefined;
      }
    },
    stop() {
      return new Promise((resolve) => {
        if (served.exited) return resolve(served.exited.code);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      });
    },
  };
  child.once('exit', (code, signal) => {
    served.exited = { code, signal };
  });
  child.once('close', () => closeSync(gcLog));
  await ready(options.base, served);
  return served;
}

/** Waits for /healthz to answer 200 (or the process to end). */
async function ready(base: string, served: ServedProvider): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (served.exited) {
      throw new Error(
        `ppx serve exited at start (${JSON.stringify(served.exited)}): ${served.errors.join('\n')}`,
      );
    }
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  served.child.kill('SIGKILL');
  throw new Error('ppx serve did not answer /healthz within 60 s');
}
