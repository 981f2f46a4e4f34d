import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INITIALIZE, mcpGrant, rawPost } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Slow readers (issue 22, item 8) on MCP: a call is answered with one complete JSON body even
// when the client offers to read SSE, so a client that never reads holds what any HTTP answer
// holds. The only MCP streams are a grant's change notices (issue 25: GET for 2025-11-25,
// subscriptions/listen for 2026-07-28), written through the bounded stream like every other
// surface's, counted while open and released when the reader goes.

describe('MCP streams only change notices, and counts them', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  it('a call offering to read SSE is answered with one JSON body; GET is a counted notice stream', async () => {
    const { token } = await mcpGrant(p);
    const init = await rawPost(p, token, INITIALIZE);
    assert.equal(init.status, 200);
    const list = await rawPost(p, token, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    assert.equal(list.status, 200);
    assert.match(list.headers.get('content-type') ?? '', /^application\/json/, 'not text/event-stream');
    assert.ok(Array.isArray(list.json.result.tools));
    const get = await fetch(`${p.url}/mcp`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    assert.equal(get.status, 200);
    assert.match(get.headers.get('content-type') ?? '', /^text\/event-stream/);
    const open = async () =>
      Number(
        /ppx_open_streams\{surface="mcp"\} (\d+)/.exec(await (await fetch(`${p.url}/metrics`)).text())?.[1],
      );
    assert.equal(await open(), 1);
    await get.body?.cancel();
    for (let i = 0; i < 100 && (await open()) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await open(), 0, 'released when the reader goes');
  });
});
