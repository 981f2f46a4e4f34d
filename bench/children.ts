import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The bench's server processes: each is this same node binary running an entry that prints one
// JSON line on stdout when it is ready (its URL, maybe a token) and serves until SIGTERM or
// until its stdin closes.

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  readonly name: string;
  readonly proc: ChildProcess;
  /** The ready line, parsed; rejects if the child exits first or stays silent for 30 s. */
  readonly ready: Promise<Record<string, string>>;
}

export function startChild(
  name: string,
  argv: readonly string[],
  options: { execArgv?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): Child {
  const proc = spawn(process.execPath, [...(options.execArgv ?? []), ...argv], {
    stdio: ['pipe', 'pipe', 'inherit'],
    cwd: root,
    ...(options.env ? { env: options.env } : {}),
  });
  const ready = new Promise<Record<string, string>>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${name}: no ready line within 30 s`)), 30_000);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`));
    });
    proc.stdout?.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf.slice(0, nl)));
      } catch (e) {
        reject(new Error(`${name}: ready line is not JSON: ${buf.slice(0, nl)} (${String(e)})`));
      }
    });
  });
  ready.catch(() => undefined);
  return { name, proc, ready };
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child is gone. */
export async function stopChild({ proc }: Child): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}
