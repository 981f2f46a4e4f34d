import assert from 'node:assert/strict';
import { connect } from 'node:net';
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

  it('a GET that carries a body is refused in words and opens no stream', async () => {
    const { token } = await mcpGrant(p);
    const open = async () =>
      Number(
        /ppx_open_streams\{surface="mcp"\} (\d+)/.exec(await (await fetch(`${p.url}/metrics`)).text())?.[1],
      );
    const url = new URL(p.url);
    // fetch sends no body with a GET: the request is written by hand, as a client may.
    for (const framing of ['Content-Length: 524288', 'Transfer-Encoding: chunked']) {
      const body = framing.startsWith('Content') ? 'x'.repeat(524288) : '5\r\nhello\r\n0\r\n\r\n';
      const head = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(
            `GET /mcp HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n` +
              `Accept: text/event-stream\r\n${framing}\r\n\r\n${body}`,
          );
        });
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (d: string) => {
          text += d;
          if (text.includes('\r\n\r\n') && text.includes('}')) {
            socket.destroy();
            resolve(text);
          }
        });
        socket.on('error', reject);
        // A stream opened instead would never end: what came within 2 s is the answer.
        setTimeout(() => {
          socket.destroy();
          resolve(text);
        }, 2000).unref();
      });
      assert.match(head, /^HTTP\/1\.1 400 /, framing);
      assert.match(head, /carries no body; send JSON-RPC messages with POST/);
      assert.equal(await open(), 0, 'no stream was opened');
    }
  });
});
