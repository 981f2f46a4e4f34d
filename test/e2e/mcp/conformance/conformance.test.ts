import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipWhen } from '../../../support/skip.ts';
import { type NoAuthMcp, startNoAuthMcp } from './no-auth-server.ts';

// The server scenarios of the official MCP conformance suite (devDependency
// @modelcontextprotocol/conformance, Node 22+) against the test build with a fixed caller
// (no-auth-server.ts: its server mode cannot send a bearer token). Scenarios that need the suite's
// "everything server" fixtures are expected failures (conformance-expected-failures.yml); any
// other failure fails the test. Bounded in time; skipped when the package is not installed.

const ROOT = join(import.meta.dirname, '../../../..');
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = join(import.meta.dirname, 'conformance-expected-failures.yml');
const missing = !existsSync(CLI) && 'the conformance suite is not installed (npm install)';

describe('MCP conformance suite (server scenarios, test build without auth)', skipWhen(missing), () => {
  let server: NoAuthMcp;
  let out: string;
  before(async () => {
    server = await startNoAuthMcp();
    out = mkdtempSync(join(tmpdir(), 'ppx-conformance-'));
  });
  after(async () => {
    await server.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('passes every scenario that applies, and fails only the expected ones', {
    timeout: 150_000,
  }, async () => {
    const args = [CLI, 'server', '--url', server.url, '--expected-failures', BASELINE, '-o', out];
    const r = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, args, { timeout: 120_000, cwd: out }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      });
    });
    const summary = r.output.slice(r.output.indexOf('=== SUMMARY ==='));
    assert.equal(r.code, 0, `conformance exited ${r.code}\n${summary}`);
    assert.match(summary, /Baseline check passed/, summary);
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'dns-rebinding-protection',
    ]) {
      assert.match(
        summary,
        new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`),
        `${scenario}\n${summary}`,
      );
    }
  });
});
