import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { it } from 'node:test';

// The MCP tests that talk through the SDK client (test/support/mcp-client.ts#connect), once more
// with the v2 client pinned to 2026-07-28 (issue 25: "passes every MCP test the v1 client
// passes"). They run in a child `node --test` with PPX_TEST_MCP set, alongside the rest of the
// suite; the 1.x client runs them in the suite itself. `npm run test:mcp-2026` runs them alone.

export const THROUGH_THE_CLIENT = [
  'test/e2e/mcp/auth.test.ts',
  'test/e2e/mcp/hidden-change-times.test.ts',
  'test/e2e/mcp/parity.test.ts',
  'test/e2e/mcp/scope.test.ts',
  'test/e2e/mcp/shared-reads.test.ts',
  'test/e2e/mcp/tools.test.ts',
  'test/e2e/mcp/packages/discovery.test.ts',
  'test/e2e/mcp/packages/fan-out.test.ts',
  'test/e2e/mcp/packages/grant-id.test.ts',
  'test/e2e/mcp/packages/inactive.test.ts',
  'test/e2e/mcp/packages/lifecycle.test.ts',
  'test/e2e/mcp/packages/presentation.test.ts',
  'test/e2e/changes/mcp.test.ts',
  'test/e2e/agui/live.test.ts',
  'test/e2e/a2a/views.test.ts',
  'test/e2e/catalog/catalog.test.ts',
];

it('every MCP test through the SDK client passes with the v2 client speaking 2026-07-28', async () => {
  // Without NODE_TEST_CONTEXT: a child that inherits it reports to this runner instead of running.
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const child = spawn(
    process.execPath,
    ['--test', '--test-concurrency=1', '--test-reporter=spec', ...THROUGH_THE_CLIENT],
    { env: { ...env, PPX_TEST_MCP: '2026-07-28' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, output.slice(-8000));
  assert.match(output, /pass [1-9]/, 'the child ran the tests');
});
