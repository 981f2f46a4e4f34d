import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

// The "done when" of issue 28 for the package: `npm pack` of packages/client installs into an
// empty folder (offline: the package has no dependencies) and the README's five-minute start,
// written there as an .mjs file as an app developer would, runs with plain Node against a
// provider started as `npm start` starts it (`ppx serve --seed-demo`, on a free port and a
// throw-away database). The person's approval is made over the subject's HTTP API when the
// script prints the consent URL. Run it with `npm run check:client-pack` (it builds dist/ first);
// `--node PATH` runs the five-minute start with another Node (the oldest the package claims, 20).

const PACKAGE = join(import.meta.dirname, '..');
const ROOT = join(PACKAGE, '..', '..');
const PLACEHOLDER_URL = 'https://prefs.example';
const PLACEHOLDER_SUBJECT = 'the-person-id-you-were-given';

export interface PackReport {
  readonly tarball: string;
  readonly bytes: number;
  readonly files: readonly string[];
  readonly node: string;
  /** What the five-minute start printed. */
  readonly output: string;
}

/** The five-minute start of the README: the first ```js block under "## Five minutes". */
export function fiveMinuteStart(readme: string): string {
  const section = readme.slice(readme.indexOf('## Five minutes'));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('README.md has no ```js block under "## Five minutes"');
  return block[1];
}

export async function packCheck(options: { readonly node?: string } = {}): Promise<PackReport> {
  const node = options.node ?? process.execPath;
  const work = mkdtempSync(join(tmpdir(), 'ppx-pack-'));
  let provider: ChildProcess | undefined;
  try {
    // The provider starts while the package is packed and installed (it takes as long).
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const db = join(work, 'ppx.db');
    const serving = serve(db, port, url, (child) => {
      provider = child;
    });
    serving.catch(() => undefined);
    const packed = pack(join(work, 'pack'));
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'five-minute-app', private: true, type: 'module' }, null, 2)}\n`,
    );
    npm(['install', '--offline', '--no-audit', '--no-fund', packed.path], app);
    await serving;
    const owner = JSON.parse(
      execFileSync(process.execPath, [join(ROOT, 'bin/ppx.js'), 'mint', 'subject', '--db', db, '--json'], {
        encoding: 'utf8',
      }),
    ) as { subject_id: string; access_token: string };

    const start = fiveMinuteStart(readFileSync(join(PACKAGE, 'README.md'), 'utf8'))
      .replaceAll(PLACEHOLDER_URL, url)
      .replaceAll(PLACEHOLDER_SUBJECT, owner.subject_id);
    writeFileSync(join(app, 'five-minutes.mjs'), start);
    const output = await runStart(node, app, (id) => approve(url, owner.access_token, id));
    return {
      tarball: packed.name,
      bytes: packed.bytes,
      files: packed.files,
      node: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(),
      output,
    };
  } finally {
    if (provider !== undefined) await stop(provider);
    rmSync(work, { recursive: true, force: true });
  }
}

/** `npm pack` of the package into `dir`: the tarball, its size and its files. */
function pack(dir: string) {
  mkdirSync(dir);
  const [info] = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], PACKAGE)) as {
    filename: string;
    size: number;
    files: { path: string }[];
  }[];
  if (info === undefined) throw new Error('npm pack printed nothing');
  const files = info.files.map((f) => f.path).sort();
  if (!files.includes('dist/index.js'))
    throw new Error('the tarball has no dist/index.js: npm run build:client');
  const stray = files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json');
  if (stray.length > 0) throw new Error(`the tarball holds files it should not: ${stray.join(', ')}`);
  return { name: info.filename, path: join(dir, info.filename), bytes: info.size, files };
}

/** npm with the environment of a shell, not of the `npm run` that may have started this script. */
function npm(args: readonly string[], cwd: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));
  return execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** `ppx serve --seed-demo`, as `npm start` runs it (without building the web app), once it listens. */
function serve(
  db: string,
  port: number,
  url: string,
  started: (child: ChildProcess) => void,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/ppx.js'), 'serve', '--seed-demo', '--db', db, '--port', String(port), '--base-url', url],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const listening = (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening on')) {
        child.stdout?.off('data', listening);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', listening);
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`ppx serve exited early (${code}): ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The person, signed in elsewhere, allows the request (what the consent page's button does). */
async function approve(url: string, ownerToken: string, grantRequestId: string): Promise<void> {
  const r = await fetch(`${url}/v1/consent/approve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ grant_request_id: grantRequestId }),
  });
  if (r.status !== 200) throw new Error(`the approval failed: ${r.status} ${await r.text()}`);
}

/**
 * Runs five-minutes.mjs; when it prints a consent URL (`…/consent/<id>`), the person approves.
 * Resolves with what it printed once it exits 0.
 */
function runStart(node: string, cwd: string, person: (id: string) => Promise<void>): Promise<string> {
  const child = spawn(node, ['five-minutes.mjs'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let asked = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const id = /\/consent\/([A-Za-z0-9_-]+)/.exec(out)?.[1];
      if (id !== undefined && !asked) {
        asked = true;
        person(id).catch((e: unknown) => {
          err += String(e);
          child.kill('SIGKILL');
        });
      }
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`five-minutes.mjs ended with ${code ?? signal}:\n${out}\n${err}`));
    });
  });
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { node: { type: 'string' } } });
  const started = performance.now();
  const report = await packCheck(values.node !== undefined ? { node: values.node } : {});
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(report.output.trimEnd());
  console.log(
    `\npack check: ${report.tarball} (${report.bytes} bytes, ${report.files.length} files) installed offline into an empty folder; the README's five-minute start ran on Node ${report.node} against ppx serve --seed-demo (${seconds} s)`,
  );
}
