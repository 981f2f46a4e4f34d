import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INITIALIZE, mcpGrant, rawPost } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Slow readers (issue 22, item 8) on MCP: the MCP surface has no server streams, so there is
// no stream buffer to bound. It is stateless with JSON responses: a call is answered with one
// complete JSON body even when the client offers to read SSE, and GET (the standalone server
// stream) is 405. A client that never reads holds what any HTTP answer holds, nothing growing.

describe('MCP has no server streams', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  it('a call offering to read SSE is answered with one JSON body, and GET opens no stream', async () => {
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
    assert.equal(get.status, 405);
    await get.text();
    const metrics = await (await fetch(`${p.url}/metrics`)).text();
    assert.ok(
      !/ppx_(open_streams|stream_buffered_bytes)\{surface="mcp"/.test(metrics),
      'no MCP stream is ever counted',
    );
  });
});
