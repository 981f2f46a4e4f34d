import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { ask, bearerFetch, isTask, resultOf } from '../support/a2a-client.ts';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';
import { freePort } from '../support/provider.ts';
import { killHard, serveProcess } from '../support/serve-process.ts';

// `ppx mint grant --for mcp`: a grant token for /mcp from the CLI, used by the official MCP SDK
// client against a `ppx serve` process, with no grant_id in the call (issue 11, item 1).

describe('ppx mint grant --for mcp, end to end', () => {
  let box: CliSandbox;
  let server: ChildProcess;
  let base: string;
  before(async () => {
    box = sandbox();
    assert.equal((await box.run(['seed', '--demo'])).code, 0);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await serveProcess(box.db, port, base);
  });
  after(async () => {
    await killHard(server);
    box.cleanup();
  });

  async function mint(...extra: string[]) {
    const r = await box.run([
      'mint',
      'grant',
      '--client',
      'fragrance-demo',
      '--namespaces',
      'core,fragrance',
      '--base-url',
      base,
      '--json',
      ...extra,
    ]);
    assert.equal(r.code, 0, show(r));
    return JSON.parse(r.stdout) as { grant_id: string; resource: string; access_token: string };
  }

  async function connect(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'ppx-cli-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('the token is for BASE/mcp, and a tool call through the SDK client needs no grant_id', async () => {
    const minted = await mint('--for', 'mcp');
    assert.equal(minted.resource, `${base}/mcp`);
    assert.equal(decodeJwt(minted.access_token).aud, `${base}/mcp`);
    const client = await connect(minted.access_token);
    try {
      const r = await client.callTool({ name: 'ppx_get_profile_summary', arguments: {} });
      assert.notEqual(r.isError, true, JSON.stringify(r));
      const data = (r.structuredContent as { data?: { claims?: unknown[] } }).data;
      assert.ok(data, JSON.stringify(r.structuredContent));
      const grants = await client.callTool({ name: 'ppx_list_consent_grants', arguments: {} });
      const listed = (grants.structuredContent as { data: { grants: { grant_id: string }[] } }).data.grants;
      assert.deepEqual(
        listed.map((g) => g.grant_id),
        [minted.grant_id],
      );
    } finally {
      await client.close();
    }
  });

  it('--for a2a mints a token the A2A SDK client calls the preference agent with', async () => {
    const minted = await mint('--for', 'a2a');
    assert.equal(minted.resource, `${base}/a2a`);
    const fetchImpl = bearerFetch(minted.access_token);
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }).createFromUrl(base);
    const task = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(task) && Array.isArray((resultOf(task) as { claims: unknown[] }).claims));
  });

  it('--resource BASE/mcp mints the same audience', async () => {
    const minted = await mint('--resource', `${base}/mcp`);
    assert.equal(decodeJwt(minted.access_token).aud, `${base}/mcp`);
  });

  it('the default (--for api) token is for the HTTP API, and /mcp refuses it', async () => {
    const minted = await mint();
    assert.equal(minted.resource, base);
    await assert.rejects(connect(minted.access_token), /401|invalid_token|another resource/i);
  });

  for (const [extra, problem] of [
    [['--for', 'ws'], '--for must be one of api, mcp, a2a, not "ws"'],
    [['--resource', 'http://elsewhere.example/mcp'], null],
    [['--for', 'api', '--resource', 'BASE/mcp'], null],
  ] as const) {
    it(`refuses ${extra.join(' ')}`, async () => {
      const args = extra.map((a) => a.replace('BASE', base));
      const r = await box.run([
        'mint',
        'grant',
        '--client',
        'fragrance-demo',
        '--namespaces',
        'core',
        '--base-url',
        base,
        ...args,
      ]);
      assert.equal(r.code, 2, show(r));
      const expected =
        problem ??
        (args[0] === '--resource'
          ? `--resource must be one of this provider's resources: ${base}, ${base}/mcp, ${base}/a2a`
          : `--for api is ${base}, not --resource ${base}/mcp`);
      assert.equal(r.stderr, `ppx mint: ${expected}\n`);
      assert.doesNotMatch(r.stdout, /access_token/);
    });
  }
});
