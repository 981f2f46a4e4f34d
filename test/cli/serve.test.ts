import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { BIN, ROOT, sandbox } from '../support/cli.ts';
import { officialErrors, SKIP_NO_SHARED } from '../support/official-schemas.ts';
import { freePort } from '../support/provider.ts';
import { type Child, waitForExit, waitForLine } from './serve-child.ts';

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
