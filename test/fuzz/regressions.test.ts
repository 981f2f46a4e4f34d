import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mcpGrant, rawPost } from '../e2e/mcp/helpers.ts';
import { api, startTestProvider, type TestProvider } from '../support/provider.ts';

// Inputs the fuzzer (test/fuzz/run.ts) found that crashed the server or answered 5xx, each kept
// as the smallest request that did it, with what it must get instead. docs/fuzzing.md lists them.

describe('fuzz findings', () => {
  let p: TestProvider;
  const rejections: unknown[] = [];
  const onRejection = (e: unknown) => rejections.push(e);
  before(async () => {
    p = await startTestProvider();
    // An unhandled rejection ends `ppx serve`; here it is caught, so that the test can say so.
    process.on('unhandledRejection', onRejection);
  });
  after(async () => {
    process.off('unhandledRejection', onRejection);
    await p.close();
  });

  it('MCP: a batch naming one id twice with invalid params does not end the process', async () => {
    // seed 3, input 3206: the second refusal had no request left to answer, and its send's
    // rejection was left unhandled.
    const { token } = await mcpGrant(p);
    const call = {
      jsonrpc: '2.0',
      id: 574,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: 'x',
        clientInfo: { name: 'fuzz', version: '1' },
      },
    };
    const r = await rawPost(p, token, [call, call]);
    assert.ok(r.status < 500, r.text);
    assert.equal((await api(p.url, '/healthz')).status, 200);
    assert.deepEqual(rejections, []);
  });

  it('MCP: a method named like an Object.prototype member is an unknown method, not a 500', async () => {
    // seed 2, input 4487: request-params.ts looked the method up in a plain object.
    const { token } = await mcpGrant(p);
    for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const r = await rawPost(p, token, { jsonrpc: '2.0', id: 1, method, params: {} });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.error.code, -32601, r.text);
    }
  });
});
