import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Runs the real CLI (bin/ppx.js) as a child process, the way a user does. Not a *.test.ts file.

export const ROOT = new URL('../../', import.meta.url).pathname;
export const BIN = join(ROOT, 'bin/ppx.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A temp directory holding one database; `env` points PPX_DB at it. */
export interface CliSandbox {
  readonly dir: string;
  readonly db: string;
  readonly env: NodeJS.ProcessEnv;
  run(args: string[], timeoutMs?: number): Promise<CliResult>;
  path(name: string): string;
  cleanup(): void;
}

export function sandbox(): CliSandbox {
  const dir = mkdtempSync(join(tmpdir(), 'ppx-cli-'));
  const db = join(dir, 'ppx.db');
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), PPX_DB: db };
  return {
    dir,
    db,
    env,
    run: (args, timeoutMs = 30_000) => runCli(args, env, timeoutMs),
    path: (name) => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The parent's environment without any PPX_* variable that could leak into the child. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PPX_') && k !== 'PORT') env[k] = v;
  return env;
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  /** The folder it runs in; the repository by default (where `data/ppx.db` would be). */
  cwd = ROOT,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ppx ${args.join(' ')} timed out after ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Formats a result for assertion messages. */
export function show(r: CliResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}
