import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

// `ppx serve` as a child process, for the tests that start it the way a user does and watch what
// it prints. Not a *.test.ts file.

export type Child = ChildProcessByStdio<null, Readable, Readable>;

/** Resolves with the first stdout line matching `pattern`; rejects on exit or timeout. */
export function waitForLine(
  child: Child,
  pattern: RegExp,
  timeoutMs: number,
  log: { out: string; err: string },
) {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "${pattern}" within ${timeoutMs} ms\n${log.out}\n${log.err}`)),
      timeoutMs,
    );
    const onData = () => {
      const line = log.out.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(line);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited early (${code ?? signal})\n${log.out}\n${log.err}`));
    });
  });
}

export function waitForExit(child: Child, timeoutMs: number) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    const timer = setTimeout(
      () => reject(new Error(`serve did not exit within ${timeoutMs} ms of SIGTERM`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}
