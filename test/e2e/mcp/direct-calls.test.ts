import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { childId } from '../../../src/operations/child-ids.ts';
import { directAnswerCount } from '../../../src/surfaces/mcp/direct-answer.ts';
import { testClock } from '../../support/clock.ts';
import { MODERN_ENVELOPE, mcpGrant, modernPost, rawPost } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { mcpPackage } from './packages/helpers.ts';

// A lone tools/call written the plain way is answered by the provider itself, not by the SDK's
// transport and Server (src/surfaces/mcp/direct-call.ts): the answer must be the SDK's, byte for
// byte. Each call is sent twice, once plain (answered directly) and once with a progress token in
// `_meta`, which changes nothing in the answer but sends the call the SDK's way; status, type,
// challenge and body must be the same. The clock stands still, so both reads are of one second.

type Answer = Awaited<ReturnType<typeof rawPost>>;

/** The call as sent plainly, and the same call that only the SDK answers. */
function bothWays(
  send: (params: Record<string, unknown>) => Promise<Answer>,
  params: Record<string, unknown>,
  sdkMeta: Record<string, unknown>,
): Promise<[Answer, Answer]> {
  return (async () => {
    const before = directAnswerCount();
    const direct = await send(params);
    assert.equal(directAnswerCount(), before + 1, 'the plain call was answered directly');
    const sdk = await send({ ...params, _meta: sdkMeta });
    assert.equal(directAnswerCount(), before + 1, 'the call with a progress token went to the SDK');
    return [direct, sdk];
  })();
}

function assertSame([direct, sdk]: [Answer, Answer]): void {
  assert.equal(direct.status, sdk.status, direct.text);
  assert.equal(direct.headers.get('content-type'), sdk.headers.get('content-type'));
  assert.equal(direct.headers.get('www-authenticate'), sdk.headers.get('www-authenticate'));
  assert.equal(direct.headers.get('cache-control'), 'no-store');
  assert.equal(direct.text, sdk.text);
}

const GENERATIONS = [
  {
    name: '2025-11-25',
    send: (p: TestProvider, token: string, id: number | string) => (params: Record<string, unknown>) =>
      rawPost(p, token, { jsonrpc: '2.0', id, method: 'tools/call', params }),
    sdkMeta: { progressToken: 'p' },
  },
  {
    name: '2026-07-28',
    send: (p: TestProvider, token: string, id: number | string) => (params: Record<string, unknown>) => {
      const { _meta, ...rest } = params;
      // modernPost adds the envelope to whatever `_meta` is given.
      return modernPost(p, token, {
        jsonrpc: '2.0',
        id: id as number,
        method: 'tools/call',
        params: { ...rest, _meta: _meta ?? {} },
      });
    },
    sdkMeta: { ...MODERN_ENVELOPE, progressToken: 'p' },
  },
] as const;

describe('MCP tools/call answered directly: the SDK answer, byte for byte', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider({ clock: testClock().clock });
  });
  after(() => p.close());

  for (const g of GENERATIONS) {
    describe(g.name, () => {
      it('a read, its document and text copy', async () => {
        const { token } = await mcpGrant(p);
        const args = { context: { occasion: 'date_night' } };
        const both = await bothWays(
          g.send(p, token, 7),
          { name: 'ppx_get_effective_profile', arguments: args },
          g.sdkMeta,
        );
        assertSame(both);
        assert.equal(both[0].json.result.isError, undefined);
        assert.ok(both[0].json.result.structuredContent.data.claims.length > 0);
      });

      it('a string id, a summary, the discovery tool, a call without arguments', async () => {
        const { token } = await mcpGrant(p);
        const send = g.send(p, token, 'call-1');
        assertSame(await bothWays(send, { name: 'ppx_get_profile_summary', arguments: {} }, g.sdkMeta));
        assertSame(await bothWays(send, { name: 'ppx_list_granted_access', arguments: {} }, g.sdkMeta));
        assertSame(await bothWays(send, { name: 'ppx_get_profile_summary' }, g.sdkMeta));
      });

      it('a tool error (isError, structuredContent.error)', async () => {
        const { token } = await mcpGrant(p);
        const both = await bothWays(
          g.send(p, token, 3),
          { name: 'ppx_get_effective_profile', arguments: { context: 5 } },
          g.sdkMeta,
        );
        assertSame(both);
        assert.equal(both[0].json.result.isError, true);
      });

      it('a refusal at the HTTP level (403 insufficient_scope)', async () => {
        const { token } = await mcpGrant(p, { allowed_operations: ['query'] });
        const both = await bothWays(
          g.send(p, token, 4),
          { name: 'ppx_propose_updates', arguments: { claims: [] } },
          g.sdkMeta,
        );
        assertSame(both);
        assert.equal(both[0].status, 403);
      });

      it('a package token fanning out (structuredContent.results, isError false)', async () => {
        const pkg = await mcpPackage(p, [{}]);
        const child = childId(pkg.grants[0]!.grant_id);
        const both = await bothWays(
          g.send(p, pkg.token, 5),
          { name: 'ppx_get_effective_profile', arguments: { grant_id: [child], context: {} } },
          g.sdkMeta,
        );
        assertSame(both);
        assert.equal(both[0].json.result.isError, false);
        assert.equal(both[0].json.result.structuredContent.results.length, 1);
      });
    });
  }

  it('what the SDK would refuse or read otherwise is left to it', async () => {
    const { token } = await mcpGrant(p);
    const call = { name: 'ppx_get_profile_summary', arguments: {} };
    const before = directAnswerCount();
    // An unknown tool, an extra member, a fractional id, a bad Accept, a modern header without
    // the envelope, an envelope whose headers disagree with it.
    await rawPost(p, token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope' } });
    await rawPost(p, token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call, extra: 1 });
    await rawPost(p, token, { jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: call });
    const badAccept = await rawPost(
      p,
      token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call },
      {
        accept: 'application/json',
      },
    );
    assert.equal(badAccept.status, 406);
    const noEnvelope = await rawPost(
      p,
      token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call },
      {
        'mcp-protocol-version': '2026-07-28',
      },
    );
    assert.equal(noEnvelope.status, 400);
    const mismatch = await modernPost(
      p,
      token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call },
      { 'mcp-name': 'ppx_get_effective_profile' },
    );
    assert.equal(mismatch.status, 400);
    // A malformed envelope, twice (the classifier's verdict on it is kept).
    for (let i = 0; i < 2; i++) {
      const malformed = await modernPost(p, token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { ...call, _meta: { 'io.modelcontextprotocol/clientCapabilities': 5 } },
      });
      assert.equal(malformed.status, 400, malformed.text);
    }
    assert.equal(directAnswerCount(), before);
  });
});
