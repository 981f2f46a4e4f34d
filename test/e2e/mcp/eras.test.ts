import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { INITIALIZE, mcpGrant, modernPost, rawPost, toolCall } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Both protocol generations against one server and one token (issue 25 item 1): the 1.x client
// (2025-11-25), the v2 client negotiating in its three modes, and raw requests of each
// generation. Everything a grantee can see is the same in both: tools, results, resources, and
// every HTTP-level refusal (status, challenge, body). What only 2026-07-28 has (server/discover,
// the envelope and header checks) is answered as the SDK answers it.

const CLAIM = {
  type: 'preference',
  namespace: 'fragrance',
  key: 'freshness_preference',
  value: 0.2,
  confidence: 0.6,
  source: { kind: 'observed', origin: 'in_app_session' },
};

type Mode = 'legacy' | 'auto' | { pin: '2026-07-28' };

describe('MCP: both protocol generations on one endpoint', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const headersOf = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

  async function modern(token: string, mode: Mode): Promise<ModernClient> {
    const client = new ModernClient({ name: 'eras', version: '1' }, { versionNegotiation: { mode } });
    await client.connect(new ModernTransport(new URL(`${p.url}/mcp`), headersOf(token)));
    return client;
  }

  async function v1(token: string): Promise<V1Client> {
    const client = new V1Client({ name: 'eras', version: '1' });
    await client.connect(new V1Transport(new URL(`${p.url}/mcp`), headersOf(token)));
    return client;
  }

  it('the v2 client negotiates 2026-07-28 when it probes or pins, 2025-11-25 when it does not', async () => {
    const { token } = await mcpGrant(p);
    const seen: Record<string, string | undefined> = {};
    for (const mode of ['legacy', 'auto', { pin: '2026-07-28' }] as Mode[]) {
      const client = await modern(token, mode);
      seen[JSON.stringify(mode)] = client.getNegotiatedProtocolVersion();
      await client.close();
    }
    assert.deepEqual(seen, {
      '"legacy"': '2025-11-25',
      '"auto"': '2026-07-28',
      '{"pin":"2026-07-28"}': '2026-07-28',
    });
    const old = await v1(token);
    assert.equal(old.getServerVersion()?.name, 'ppx-provider');
    await old.close();
  });

  it('lists the same tools and resources and answers the same tool call in every generation', async () => {
    const { token } = await mcpGrant(p);
    const clients = [
      await v1(token),
      await modern(token, 'legacy'),
      await modern(token, { pin: '2026-07-28' }),
    ] as unknown as V1Client[];
    const tools = await Promise.all(clients.map((c) => c.listTools()));
    const templates = await Promise.all(clients.map((c) => c.listResourceTemplates()));
    const resources = await Promise.all(clients.map((c) => c.listResources()));
    const reads = await Promise.all(
      clients.map((c) =>
        c.callTool({ name: 'ppx_query_claims', arguments: { requested_namespaces: ['core'] } }),
      ),
    );
    const summaries = await Promise.all(
      clients.map((c) => c.readResource({ uri: resources[0]!.resources[0]!.uri })),
    );
    for (const c of clients) await c.close();
    // Results of 2026-07-28 carry the server's identity and cache hints in their own members.
    const bare = (r: object) => {
      const { _meta: _m, ttlMs: _t, cacheScope: _s, resultType: _r, ...rest } = r as Record<string, unknown>;
      return rest;
    };
    for (const i of [1, 2]) {
      assert.deepEqual(bare(tools[i]!), bare(tools[0]!), `tools/list, client ${i}`);
      assert.deepEqual(bare(templates[i]!), bare(templates[0]!), `templates, client ${i}`);
      assert.deepEqual(bare(resources[i]!), bare(resources[0]!), `resources, client ${i}`);
      const claims = (r: object) =>
        (bare(r) as { structuredContent: { data: { claims: unknown } } }).structuredContent.data.claims;
      assert.deepEqual(claims(reads[i]!), claims(reads[0]!), `tools/call, client ${i}`);
      const text = (r: { contents: object[] }) =>
        JSON.parse(String((r.contents[0] as { text?: unknown }).text)).claims;
      assert.deepEqual(text(summaries[i]!), text(summaries[0]!), `resources/read, client ${i}`);
    }
    assert.ok(reads[0]!.structuredContent, 'the read answered');
  });

  /** The same request in each generation: status, challenge and body must not differ. */
  async function bothEras(token: string | undefined, name: string, args: Record<string, unknown>) {
    if (token !== undefined) assert.equal((await rawPost(p, token, INITIALIZE)).status, 200);
    const old = await rawPost(p, token, toolCall(name, args));
    const now = await modernPost(p, token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const row = (r: typeof old) => ({
      status: r.status,
      challenge: r.headers.get('www-authenticate'),
      body: r.json,
    });
    assert.deepEqual(row(now), row(old), `${name}: ${now.text}`);
    return row(now);
  }

  it('answers every HTTP-level refusal alike in both generations', async () => {
    const none = await bothEras(undefined, 'ppx_get_profile_summary', {});
    assert.equal(none.status, 401);
    const narrow = await mcpGrant(p, { allowed_operations: ['query'] });
    assert.equal((await bothEras(narrow.token, 'ppx_get_profile_summary', {})).status, 403);
    const reader = await mcpGrant(p);
    const domain = await bothEras(reader.token, 'ppx_get_effective_profile', { requested_domain: 'travel' });
    assert.equal(domain.body.error, 'cross_domain_denied');
    const writer = await mcpGrant(p, {
      allowed_operations: ['read', 'propose_update'],
      writeback_policy: 'forbidden',
    });
    const write = await bothEras(writer.token, 'ppx_propose_updates', { claims: [CLAIM] });
    assert.equal(write.body.error, 'writeback_forbidden');
    const gone = await mcpGrant(p);
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: gone.grant.grant_id },
    });
    assert.equal(revoked.status, 200, revoked.text);
    const after = await rawPost(p, gone.token, toolCall('ppx_get_profile_summary'));
    const now = await modernPost(p, gone.token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ppx_get_profile_summary', arguments: {} },
    });
    assert.equal(now.status, 401);
    assert.equal(now.headers.get('www-authenticate'), after.headers.get('www-authenticate'));
    assert.deepEqual(now.json, after.json);
  });

  it('answers server/discover, and the envelope and header checks of 2026-07-28, as the SDK does', async () => {
    const { token } = await mcpGrant(p);
    const discover = await modernPost(p, token, { jsonrpc: '2.0', id: 1, method: 'server/discover' });
    assert.equal(discover.status, 200, discover.text);
    assert.deepEqual(discover.json.result.supportedVersions, ['2026-07-28']);
    assert.ok(discover.json.result.capabilities.tools, 'tools are a capability');
    assert.match(discover.json.result.instructions, /ppx_list_granted_access/);
    assert.equal(discover.json.result._meta['io.modelcontextprotocol/serverInfo'].name, 'ppx-provider');
    const mismatch = await modernPost(
      p,
      token,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-method': 'tools/call' },
    );
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.json.error.code, -32020);
    const unknown = await modernPost(
      p,
      token,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.error.code, -32022);
    // A resource that is not there: -32602 with data.uri in both (SEP-2164; 2025-11-25 said
    // -32002, the v2 SDK answers -32602).
    const read = {
      jsonrpc: '2.0' as const,
      id: 4,
      method: 'resources/read',
      params: { uri: 'ppx://nothing/here' },
    };
    for (const missing of [await modernPost(p, token, read), await rawPost(p, token, read)]) {
      assert.equal(missing.json.error.code, -32602, missing.text);
      assert.deepEqual(missing.json.error.data, { uri: 'ppx://nothing/here' });
    }
    // 2026-07-28 has no initialize and no ping: 404 Method not found, whatever their params (the
    // 2025 shape is not checked there); in 2025 malformed initialize params are said in words.
    for (const method of ['initialize', 'ping']) {
      for (const params of [{}, { protocolVersion: 5 }]) {
        const gone = await modernPost(p, token, { jsonrpc: '2.0', id: 6, method, params });
        assert.equal(gone.status, 404, `${method} ${gone.text}`);
        assert.equal(gone.json.error.code, -32601, `${method} ${gone.text}`);
      }
    }
    const malformed = await rawPost(p, token, { ...INITIALIZE, params: { protocolVersion: 5 } });
    assert.equal(malformed.status, 200);
    assert.equal(malformed.json.error.code, -32602);
    assert.match(malformed.json.error.message, /Invalid params for initialize: params\.protocolVersion/);
    // Malformed params are said in words in both.
    const bad = { jsonrpc: '2.0' as const, id: 5, method: 'tools/call', params: { name: 5 } };
    const said = await modernPost(p, token, bad);
    assert.equal(said.status, 200);
    assert.equal(said.json.error.code, -32602);
    assert.match(said.json.error.message, /params\.name: expected string/);
  });

  it('keeps tools/list of 2026-07-28 under the same byte budget', async () => {
    const { token } = await mcpGrant(p);
    const r = await modernPost(p, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(r.status, 200);
    const bytes = Buffer.byteLength(JSON.stringify({ tools: r.json.result.tools }));
    assert.ok(bytes <= 16 * 1024, `tools/list is ${bytes} bytes`);
  });
});
