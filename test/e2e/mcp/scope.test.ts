import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, INITIALIZE, mcpGrant, prmUrl, rawPost, toolCall } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// WIRE-NOTES §5 for a single-grant token: scope, cross-domain and writeback refusals are HTTP
// 403s (so OAuth-aware clients can step up); the same scope governs the resources.

const CLAIM = {
  type: 'preference',
  namespace: 'fragrance',
  key: 'freshness_preference',
  value: 0.2,
  confidence: 0.6,
  source: { kind: 'observed', origin: 'in_app_session' },
};

describe('MCP scope refusals and resources', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  async function refused(token: string, name: string, args: Record<string, unknown>, code: string) {
    const init = await rawPost(p, token, INITIALIZE);
    assert.equal(init.status, 200, 'the token itself is fine');
    const r = await rawPost(p, token, toolCall(name, args));
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.error, code);
    const challenge = r.headers.get('www-authenticate');
    if (code === 'insufficient_scope') {
      assert.match(
        challenge ?? '',
        /^Bearer realm="ppx", resource_metadata="[^"]+", error="insufficient_scope"/,
      );
      assert.ok(challenge?.includes(prmUrl(p)));
    } else {
      assert.equal(challenge, null);
    }
    // The texts avoid the trigger words (the code `writeback_forbidden` is the wire code itself).
    assert.doesNotMatch(r.json.error_description, /\b401\b|unauthori[sz]ed|forbidden/i);
  }

  it('an operation outside the grant is 403 insufficient_scope', async () => {
    const { token } = await mcpGrant(p, { allowed_operations: ['query'] });
    await refused(token, 'ppx_export_profile', {}, 'insufficient_scope');
    await refused(token, 'ppx_get_profile_summary', {}, 'insufficient_scope');
    await refused(token, 'ppx_propose_updates', { claims: [CLAIM] }, 'insufficient_scope');
  });

  it('a purpose or namespace outside the grant is 403 insufficient_scope', async () => {
    const { token } = await mcpGrant(p, { allowed_namespaces: ['fragrance'] });
    await refused(token, 'ppx_get_effective_profile', { purpose: 'ranking' }, 'insufficient_scope');
    await refused(token, 'ppx_query_claims', { requested_namespaces: ['core'] }, 'insufficient_scope');
  });

  it('another domain is 403 cross_domain_denied; writeback forbidden is 403 writeback_forbidden', async () => {
    const reader = await mcpGrant(p);
    await refused(
      reader.token,
      'ppx_get_effective_profile',
      { requested_domain: 'travel' },
      'cross_domain_denied',
    );
    const writer = await mcpGrant(p, {
      allowed_operations: ['read', 'propose_update'],
      writeback_policy: 'forbidden',
    });
    await refused(writer.token, 'ppx_propose_updates', { claims: [CLAIM] }, 'writeback_forbidden');
  });

  it('other failures stay tool results; unknown tools are JSON-RPC errors', async () => {
    const { token } = await mcpGrant(p);
    const r = await rawPost(p, token, toolCall('ppx_query_claims', { min_confidence: 7 }));
    assert.equal(r.status, 200);
    assert.equal(r.json.result.isError, true);
    assert.equal(r.json.result.structuredContent.error.code, 'invalid_request');
    const unknown = await rawPost(p, token, toolCall('ppx_nothing'));
    assert.equal(unknown.status, 200);
    assert.equal(unknown.json.error.code, -32602);
  });

  it('requests of the wrong shape are -32602 Invalid params, never -32603 Internal error', async () => {
    const { token } = await mcpGrant(p);
    for (const [method, params] of [
      ['tools/call', {}],
      ['tools/call', { name: 1 }],
      ['tools/call', { name: 'ppx_get_profile_summary', arguments: [] }],
      ['tools/call', { name: 'ppx_get_profile_summary', arguments: 'x' }],
      ['resources/read', undefined],
      ['resources/read', { uri: 7 }],
      ['initialize', undefined],
      ['initialize', { protocolVersion: 5 }],
      ['initialize', { protocolVersion: '2025-11-25', capabilities: [], clientInfo: 'x' }],
      ['tools/list', { cursor: 5 }],
    ] as const) {
      const r = await rawPost(p, token, { jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.error?.code, -32602, `${method} ${JSON.stringify(params)}: ${r.text}`);
      // Said in words: which field, what was wrong; not the validator's JSON dump.
      const message = String(r.json.error?.message);
      assert.doesNotMatch(message, /[[{]\s*"/, message);
      assert.ok(message.length < 600, message);
    }
    const bad = await rawPost(p, token, {
      jsonrpc: '2.0',
      id: 9,
      method: 'initialize',
      params: { protocolVersion: 5 },
    });
    assert.equal(bad.json.id, 9);
    assert.match(
      bad.json.error.message,
      /^Invalid params for initialize: params\.protocolVersion: expected string, received number/,
    );
  });

  it('resources: templates, the pairwise summary and effective views, under the same scope', async () => {
    const { grant, token } = await mcpGrant(p);
    const client = await connect(p, token);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.deepEqual(templates, [
      'ppx://profile/{profile_id}/summary',
      'ppx://profile/{profile_id}/effective{?context}',
      'ppx://proposal/{proposal_id}',
    ]);
    const pid = p.deps.pairwise.profile(grant.profile_id, grant.grantee_id);
    assert.notEqual(pid, grant.profile_id);
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    assert.deepEqual(listed, [`ppx://profile/${encodeURIComponent(pid)}/summary`]);

    const summary = await client.readResource({ uri: listed[0]! });
    const tool = await client.callTool({ name: 'ppx_get_profile_summary', arguments: {} });
    // Resources carry the PPX object; tool data adds the MCP presentation members.
    const strip = (x: { generated_at?: string }) => ({
      ...x,
      generated_at: undefined,
      claim_instances: undefined,
      freshness: undefined,
    });
    const fromResource = JSON.parse((summary.contents[0] as { text: string }).text);
    assert.deepEqual(strip(fromResource), strip((tool.structuredContent as { data: object }).data));
    assert.doesNotMatch(JSON.stringify(summary), new RegExp(p.subjectId));

    const context = { occasion: 'evening' };
    const uri = `ppx://profile/${encodeURIComponent(pid)}/effective?context=${encodeURIComponent(JSON.stringify(context))}`;
    const effective = JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
    const viaTool = await client.callTool({ name: 'ppx_get_effective_profile', arguments: { context } });
    assert.deepEqual(
      effective.claims,
      (viaTool.structuredContent as { data: { claims: unknown } }).data.claims,
    );

    // Another profile id (even the real internal one) is absent.
    await assert.rejects(
      client.readResource({ uri: `ppx://profile/${grant.profile_id}/summary` }),
      /no resource/,
    );
    await client.close();

    // A grant without `read`: the summary resource is refused like the tool, with a 403.
    const narrow = await mcpGrant(p, { allowed_operations: ['query'] });
    const npid = p.deps.pairwise.profile(narrow.grant.profile_id, narrow.grant.grantee_id);
    const r = await rawPost(p, narrow.token, {
      jsonrpc: '2.0',
      id: 3,
      method: 'resources/read',
      params: { uri: `ppx://profile/${encodeURIComponent(npid)}/summary` },
    });
    assert.equal(r.status, 403);
    assert.equal(r.json.error, 'insufficient_scope');
  });
});
