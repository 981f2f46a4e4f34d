import { type ChildProcess, spawn } from 'node:child_process';

// `ppx serve` as a process of its own, for the tests that kill it (SIGKILL) and look at what the
// database kept: a SQLite file, or any database its CLI flags name (TestDatabase#cliArgs).

const BIN = new URL('../../bin/ppx.js', import.meta.url).pathname;

/**
 * Starts `ppx serve` on `database` (a SQLite file, or the flags naming a database) and resolves
 * once it says it is listening.
 */
export function serveProcess(
  database: string | readonly string[],
  port: number,
  base: string,
): Promise<ChildProcess> {
  const where = typeof database === 'string' ? ['--db', database] : database;
  const child = spawn(
    process.execPath,
    [BIN, 'serve', ...where, '--port', String(port), '--base-url', base, '--seed-demo'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening on')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
}

/** SIGKILL: no shutdown code runs, as when the machine pulls the plug on the process. */
export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
