import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipWhen } from '../../../support/skip.ts';
import { type NoAuthMcp, startNoAuthMcp } from './no-auth-server.ts';

// The 2026-07-28 revision of the official MCP conformance suite (devDependency
// mcp-conformance-next, an alias of @modelcontextprotocol/conformance 0.2.0-alpha.12, Node 22+):
// exactly the server scenarios the revision requires (`--requirements 2026-07-28`), against the
// test build with a fixed caller (no-auth-server.ts: the suite's server mode cannot send a bearer
// token). Checks that need the suite's "everything server" fixtures, or capabilities the provider
// does not declare, are expected failures (conformance-2026-expected-failures.yml, one check
// each); any other failure fails the test. conformance.test.ts runs 2025-11-25. If the suite
// process itself crashes (no summary), the test is skipped with its last words; skipped too when
// the package is not installed.

const ROOT = join(import.meta.dirname, '../../../..');
const PACKAGE = join(ROOT, 'node_modules/mcp-conformance-next');
const CLI = join(PACKAGE, 'dist/index.js');
const REQUIREMENTS = join(PACKAGE, 'requirements/2026-07-28.yaml');
const BASELINE = join(import.meta.dirname, 'conformance-2026-expected-failures.yml');
const missing = !existsSync(CLI) && 'the 2026-07-28 conformance suite is not installed (npm install)';

/** The items of a top-level YAML list `key:` (plain scalars, `# comments` dropped). */
function listOf(yaml: string, key: string): string[] {
  const lines = yaml.split('\n');
  const start = lines.indexOf(`${key}:`);
  assert.ok(start >= 0, `no ${key}: list`);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const item = /^\s+- ([^\s#]+)/.exec(line);
    if (item) items.push(item[1]!);
  }
  return items;
}

describe(
  'MCP conformance suite, 2026-07-28 requirements (server, test build without auth)',
  skipWhen(missing),
  () => {
    let server: NoAuthMcp;
    let out: string;
    before(async () => {
      server = await startNoAuthMcp();
      out = mkdtempSync(join(tmpdir(), 'ppx-conformance-2026-'));
    });
    after(async () => {
      await server?.close();
      if (out) rmSync(out, { recursive: true, force: true });
    });

    it('lists as expected failures only checks of scenarios the revision scores', () => {
      const scored = new Set(listOf(readFileSync(REQUIREMENTS, 'utf8'), 'server'));
      const entries = listOf(readFileSync(BASELINE, 'utf8'), 'server');
      assert.ok(entries.length > 0);
      for (const entry of entries) {
        const [scenario, check] = entry.split(':');
        assert.ok(scored.has(scenario!), `${entry}: ${scenario} is not scored for 2026-07-28`);
        assert.ok(check, `${entry}: name the check (scenario:check-id), not the whole scenario`);
      }
    });

    it('passes every scored scenario, but for the expected failures', { timeout: 150_000 }, async (t) => {
      const args = [
        CLI,
        'server',
        '--url',
        server.url,
        '--requirements',
        '2026-07-28',
        '--expected-failures',
        BASELINE,
        '-o',
        out,
      ];
      const r = await new Promise<{ code: number; killed: boolean; output: string }>((resolve) => {
        execFile(process.execPath, args, { timeout: 120_000, cwd: out }, (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, killed: error?.killed === true, output: `${stdout}\n${stderr}` });
        });
      });
      const at = r.output.indexOf('=== SUMMARY ===');
      assert.ok(!r.killed, `the suite did not finish in 120 s\n${r.output.slice(-2000)}`);
      assert.doesNotMatch(r.output, /Validation error|cannot be combined/, r.output.slice(-2000));
      if (at < 0) {
        // The suite itself crashed before its summary: not a verdict on the server.
        const lines = r.output.trim().split('\n');
        const why = lines.find((l) => /^\s*\w*Error\b/.test(l)) ?? lines.at(-1);
        t.skip(`the conformance suite crashed (exit ${r.code}): ${why?.trim()}`);
        return;
      }
      const summary = r.output.slice(at);
      assert.equal(r.code, 0, `conformance exited ${r.code}\n${summary}`);
      assert.match(summary, /Baseline check passed/, summary);
      // Every scenario the revision scores ran (one results directory each).
      const ran = readdirSync(out);
      for (const scenario of listOf(readFileSync(REQUIREMENTS, 'utf8'), 'server')) {
        assert.ok(
          ran.some((d) => d.startsWith(`server-${scenario}-`)),
          `${scenario} did not run\n${summary}`,
        );
      }
      // What the provider implements passes outright.
      for (const scenario of [
        'tools-list',
        'resources-list',
        'sep-2164-resource-not-found',
        'server-sse-multiple-streams',
        'dns-rebinding-protection',
        'input-required-result-unsupported-methods',
        'input-required-result-validate-input',
      ]) {
        assert.match(
          summary,
          new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`),
          `${scenario}\n${summary}`,
        );
      }
      // server-stateless fails only its four baselined checks, which need fixture tools.
      assert.match(summary, /✗ server-stateless: \d+ passed, 4 failed/, summary);
    });
  },
);
