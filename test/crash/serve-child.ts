import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

// `ppx serve` as a child process on a given database, rate limiting off (the crash load comes
// from one address and would otherwise be limited), to be killed with SIGKILL or stopped with
// SIGTERM. Its output is kept for the failure message when it does not start.

const BIN = new URL('../../bin/ppx.js', import.meta.url).pathname;

export interface Served {
  readonly proc: ChildProcessByStdio<null, Readable, Readable>;
  readonly pid: number;
  /** Resolves when the process has exited, with its exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it printed so far. */
  readonly log: { out: string; err: string };
}

/** Starts `ppx serve` with `flags` (the database) on `port`; resolves once it is listening. */
export async function serve(
  flags: readonly string[],
  port: number,
  baseUrl: string,
  options: { readonly execArgv?: readonly string[] } = {},
): Promise<Served> {
  const proc = spawn(
    process.execPath,
    [
      ...(options.execArgv ?? []),
      BIN,
      'serve',
      ...flags,
      '--port',
      String(port),
      '--base-url',
      baseUrl,
      '--seed-demo',
      '--rate-limit',
      '0',
    ],
    // The crash load keeps far more consent requests waiting for the demo person than a person
    // would (issue 22 item 10's caps are 3 per app, 20 per person), so it raises the caps.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PPX_PENDING_CONSENT_CAPS: '1000,1000' } },
  );
  const log = { out: '', err: '' };
  proc.stdout.setEncoding('utf8').on('data', (d: string) => (log.out += d));
  proc.stderr.setEncoding('utf8').on('data', (d: string) => (log.err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`ppx serve did not listen within 30 s\n${log.out}\n${log.err}`));
    }, 30_000);
    const onData = () => {
      if (!log.out.includes('listening on')) return;
      clearTimeout(timer);
      proc.stdout.off('data', onData);
      resolve();
    };
    proc.stdout.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`ppx serve exited before listening (${code ?? signal})\n${log.out}\n${log.err}`));
    });
  });
  if (proc.pid === undefined) throw new Error('ppx serve has no pid');
  return { proc, pid: proc.pid, exited, log };
}

/** SIGKILL: no shutdown code runs, as when the machine pulls the plug on the process. */
export async function killHard(served: Served): Promise<void> {
  if (served.proc.exitCode === null && served.proc.signalCode === null) served.proc.kill('SIGKILL');
  await served.exited;
}
