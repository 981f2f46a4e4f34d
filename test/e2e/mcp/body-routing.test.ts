import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mcpGrant } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// The body of a POST on /mcp is read once by the routing (modern-leg.ts#routeMcp) and handed to
// the leg parsed; what is not a JSON body within the limit must still be answered as the SDK
// answers it: an unparseable or empty body by the 2025 leg's parse error, a body over the limit
// (declared, or found while reading a chunked upload) by 413.

describe('MCP: bodies that are not a JSON message within the limit', () => {
  let p: TestProvider;
  let token: string;
  before(async () => {
    p = await startTestProvider();
    token = (await mcpGrant(p)).token;
  });
  after(() => p.close());

  const post = async (body: RequestInit['body'], extra: RequestInit = {}) => {
    const res = await fetch(`${p.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${token}`,
      },
      body,
      ...extra,
    });
    return { status: res.status, json: (await res.json()) as { error?: { code: number; message: string } } };
  };

  it('an unparseable or empty body: 400, parse error', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1,', '']) {
      const r = await post(body);
      assert.equal(r.status, 400, body);
      assert.equal(r.json.error?.code, -32700, body);
    }
  });

  it('a body over the limit: 413, declared or not', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(300 * 1024)}"}}`;
    const declared = await post(big);
    assert.equal(declared.status, 413);
    assert.equal(declared.json.error?.code, -32000);
    const bytes = new TextEncoder().encode(big);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 16 * 1024)
          controller.enqueue(bytes.subarray(i, i + 16 * 1024));
        controller.close();
      },
    });
    const streamed = await post(chunked, { duplex: 'half' } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.match(streamed.json.error?.message ?? '', /Payload Too Large/);
  });
});
