import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// What the tests of a SQLite file's journal and threads share: a database file in a directory of
// its own, and a child process that opens it (to be killed, or to see that it ends by itself).

/** Runs `body` with the path of a database file in a new temporary directory, removed afterwards. */
export async function withSqliteFile(prefix: string, body: (path: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `ppx-${prefix}-`));
  try {
    await body(join(dir, 'ppx.db'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `import { openSqliteStore } from …` for a child's code. */
export const SQLITE_STORE_IMPORT = `import { openSqliteStore } from ${JSON.stringify(
  new URL('../../src/store/sqlite/sqlite-store.ts', import.meta.url).pathname,
)};`;

export interface ChildEnd {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** What it wrote, standard output then standard error as they came. */
  readonly out: string;
}

/** Runs `code` as an ES module in a child process; killed (SIGKILL) if it has not ended after 60 s. */
export function runModuleChild(code: string): Promise<ChildEnd> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (chunk: Buffer) => {
      out += chunk.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, out });
    });
  });
}
