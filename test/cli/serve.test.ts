import assert from 'node:assert/strict';
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { officialErrors, SKIP_NO_SHARED } from '../support/official-schemas.ts';
import { freePort } from '../support/provider.ts';
import { BIN, ROOT, sandbox } from './helpers.ts';

type Child = ChildProcessByStdio<null, Readable, Readable>;

/** Resolves with the first stdout line matching `pattern`; rejects on exit or timeout. */
function waitForLine(child: Child, pattern: RegExp, timeoutMs: number, log: { out: string; err: string }) {
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

function waitForExit(child: Child, timeoutMs: number) {
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

describe('ppx serve as a child process', () => {
  const box = sandbox();
  let child: Child | undefined;
  after(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    box.cleanup();
  });

  it('listens, serves the discovery card, and exits on SIGTERM', async () => {
    const port = await freePort();
    const log = { out: '', err: '' };
    child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--db', box.db, '--seed-demo'], {
      cwd: ROOT,
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (log.out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (log.err += d));

    const line = await waitForLine(child, /listening/, 20_000, log);
    assert.equal(
      line,
      `PPX provider listening on http://127.0.0.1:${port} (database ${box.db}, demo profile seeded)`,
    );

    const res = await fetch(`http://127.0.0.1:${port}/.well-known/ppx-card.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const card = (await res.json()) as {
      base_url: string;
      provider_id: string;
      supported_namespaces: string[];
    };
    assert.equal(card.base_url, `http://127.0.0.1:${port}`);
    assert.equal(card.provider_id, 'ppx:provider:local');
    assert.deepEqual(card.supported_namespaces, ['core', 'fragrance', 'travel']);
    if (SKIP_NO_SHARED === false) assert.deepEqual(officialErrors('discovery-card', card), []);

    assert.equal(child.kill('SIGTERM'), true);
    const exit = await waitForExit(child, 10_000);
    assert.deepEqual(exit, { code: 0, signal: null });
    await assert.rejects(fetch(`http://127.0.0.1:${port}/.well-known/ppx-card.json`));
  });
});
