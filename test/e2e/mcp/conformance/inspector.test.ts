import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mcpGrant, mcpUrl } from '../../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';

// The official MCP Inspector (CLI mode, devDependency @modelcontextprotocol/inspector 2.x, Node
// 22+) against a started provider, as a child process with a time limit: it must list the eight
// tools and call one. Nothing is fetched at run time; scripts/mcp-inspector.sh is the manual form.

const LAUNCHER = join(
  import.meta.dirname,
  '../../../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
);
/** The eight tools of the single-grant surface (grant packages may add more). */
const TOOLS = [
  'ppx_confirm_updates',
  'ppx_export_profile',
  'ppx_get_effective_profile',
  'ppx_get_profile_summary',
  'ppx_list_consent_grants',
  'ppx_propose_updates',
  'ppx_query_claims',
  'ppx_revoke_consent_grant',
];

function inspector(home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [LAUNCHER, '--cli', ...args],
      // Its catalog (~/.mcp-inspector/mcp.json) goes to a temporary home, not the user's.
      { timeout: 30_000, env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('MCP Inspector CLI', skipWhen(!existsSync(LAUNCHER) && 'the Inspector is not installed'), () => {
  let p: TestProvider;
  let token: string;
  let home: string;
  before(async () => {
    p = await startTestProvider();
    token = (await mcpGrant(p)).token;
    home = mkdtempSync(join(tmpdir(), 'ppx-inspector-'));
  });
  after(async () => {
    await p.close();
    rmSync(home, { recursive: true, force: true });
  });

  const common = () => [mcpUrl(p), '--transport', 'http', '--header', `Authorization: Bearer ${token}`];

  it('tools/list names the eight tools', async () => {
    const r = await inspector(home, [...common(), '--method', 'tools/list']);
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    const names = (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    for (const name of TOOLS) assert.ok(names.includes(name), `${name} missing from ${names.join(', ')}`);
  });

  it('tools/list passes the schema lint of --strict: no finding, error or warning, on any tool', async () => {
    const r = await inspector(home, [...common(), '--method', 'tools/list', '--strict']);
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
    // The lint writes its findings (and a summary of them) to stderr, and nothing when there are none.
    assert.doesNotMatch(r.stderr, /Warning:|Error:|Schema portability/, r.stderr);
  });

  it('tools/call ppx_get_profile_summary answers a summary', async () => {
    const r = await inspector(home, [
      ...common(),
      '--method',
      'tools/call',
      '--tool-name',
      'ppx_get_profile_summary',
    ]);
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    const result = JSON.parse(r.stdout) as { isError?: boolean; structuredContent?: { data?: unknown } };
    assert.notEqual(result.isError, true, r.stdout);
    assert.ok(result.structuredContent?.data, r.stdout);
  });

  it('without a token, fails instead of hanging', async () => {
    const r = await inspector(home, [mcpUrl(p), '--transport', 'http', '--method', 'tools/list']);
    assert.notEqual(r.code, 0, r.stdout);
  });
});
