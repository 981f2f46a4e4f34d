import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { a2aGrant } from '../support/a2a-client.ts';
import { mcpGrant, rawPost } from '../support/mcp-client.ts';
import { dropSchemas, postgresUnreachable, schemaName, TEST_DATABASE_URL } from '../support/postgres.ts';
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

  /** A JSON-RPC call to /a2a with a grant's token for the A2A resource (A2A 1.0, or 0.3: no header). */
  async function a2a(body: string, version: '1.0' | '0.3' = '1.0') {
    const { token } = await a2aGrant(p);
    return api(p.url, '/a2a', { token, body, headers: version === '1.0' ? { 'A2A-Version': '1.0' } : {} });
  }

  it('A2A: a JSON-RPC id that is not a string, number or null is -32600 Invalid Request', async () => {
    // seed 1, input 617: the SDK echoed the id; JSON.stringify of 50,000 levels overflowed the
    // stack (500). Such an id is now refused for its type, and one that deep for its nesting.
    const message = {
      messageId: 'm',
      role: 'ROLE_USER',
      parts: [{ data: { method: 'get_effective_profile', params: {} } }],
    };
    const call = (id: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"SendMessage","params":${JSON.stringify({ message })}}`;
    for (const id of ['{"a":1}', '[1]', 'true']) {
      const r = await a2a(call(id));
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.equal(r.json.error.code, -32600, r.text.slice(0, 300));
      assert.equal(r.json.id, null);
    }
    const depth = 50_000;
    const deep = await a2a(call(`${'['.repeat(depth)}${']'.repeat(depth)}`));
    assert.equal(deep.status, 200, deep.text.slice(0, 300));
    assert.equal(deep.json.error.code, -32700, deep.text.slice(0, 300));
  });

  it('A2A 0.3: a task id that is not a string is -32602 Invalid params, not an internal error', async () => {
    // seed 2, input 2018: the 0.3 handler called .trim() on the id (-32603 "taskId.trim is not a
    // function", an internal message, and a log line for tasks/resubscribe).
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/resubscribe']) {
      for (const id of [1, 0.5, true, null, {}, []]) {
        const r = await a2a(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { id } }), '0.3');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.error.code, -32602, r.text);
        assert.match(r.json.error.message, /\bid\b/);
      }
      const missing = await a2a(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: {} }), '0.3');
      assert.equal(missing.json.error.code, -32602, missing.text);
    }
  });

  it('A2A: params the SDK cannot read (an object with its own toString, a list that is not one) are -32602', async () => {
    // seed 1809977187, input 607884 (the full run): CancelTask with params.id = {"toString": […]};
    // the 1.0 handler's String() threw, and the 0.3 handler failed on a contextId object, an
    // extensions that is not a list, and the like: each -32603 in the SDK's words.
    const bad = { toString: 1 };
    const data = { method: 'get_effective_profile', params: {} };
    const v1 = (message: Record<string, unknown>) => ({
      messageId: 'm',
      role: 'ROLE_USER',
      parts: [{ data }],
      ...message,
    });
    const v03 = (message: Record<string, unknown>) => ({
      kind: 'message',
      messageId: 'm',
      role: 'user',
      parts: [{ kind: 'data', data }],
      ...message,
    });
    const cases: [string, '1.0' | '0.3', unknown][] = [
      ['CancelTask', '1.0', { id: { toString: [0.3, null, false], '': null } }],
      ['GetTask', '1.0', { id: 'x', historyLength: bad }],
      ['ListTasks', '1.0', { pageToken: bad }],
      ['SubscribeToTask', '1.0', { id: bad }],
      ['GetExtendedAgentCard', '1.0', { tenant: bad }],
      ['SendMessage', '1.0', { message: v1({ messageId: bad }) }],
      ['message/send', '0.3', { message: v03({ contextId: bad }) }],
      ['message/send', '0.3', { message: v03({ taskId: bad }) }],
      ['message/send', '0.3', { message: v03({ extensions: bad }) }],
      ['message/send', '0.3', { message: v03({ referenceTaskIds: bad }) }],
      ['tasks/get', '0.3', { id: 'x', historyLength: 'all' }],
    ];
    for (const [method, version, params] of cases) {
      const r = await a2a(JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }), version);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.error?.code, -32602, `${method} ${JSON.stringify(params)}: ${r.text}`);
    }
  });

  it('a JSON body nested deeper than 100 levels is refused on every surface that reads one, before it is stored', async () => {
    // seed 3, input 60094: A2A message metadata nested ~700 levels was kept with the task, and
    // SQLite's json_valid (1000 levels at most) refused it: -32603 with SQLite's own words, logged.
    const nested = (depth: number) => `${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`;
    const message = (metadata: string) =>
      `{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":{"method":"recommendation_basis","params":{}}}],"metadata":{"x":${metadata}}}`;
    const send = (metadata: string) =>
      a2a(
        `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":${message(metadata)}}}`,
        '0.3',
      );
    const deep = await send(nested(700));
    assert.equal(deep.status, 200, deep.text.slice(0, 300));
    assert.equal(deep.json.error.code, -32700, deep.text.slice(0, 300));
    assert.match(deep.json.error.message, /nests deeper than 100 levels/);
    // 45 levels of [{…}] are 90, 96 with the envelope: still accepted.
    const fine = await send(nested(45));
    assert.equal(fine.json.error, undefined, fine.text.slice(0, 300));

    const { token } = await p.grant();
    const http = await api(p.url, '/v1/profile/query', { token, body: `{"context":${nested(60)}}` });
    assert.equal(http.status, 400, http.text.slice(0, 300));
    assert.equal(http.json.error, 'invalid_request');
    assert.match(http.json.error_description, /nests deeper than 100 levels/);
    const run = `{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[],"state":${nested(60)},"forwardedProps":{"follow":false}}`;
    const agui = await api(p.url, '/v1/agui/review', { token: p.subjectToken, body: run });
    assert.equal(agui.status, 400, agui.text.slice(0, 300));
    assert.match(agui.json.error_description, /nests deeper than 100 levels/);
    // Brackets inside strings are text, not nesting.
    const text = await api(p.url, '/v1/profile/query', {
      token,
      body: JSON.stringify({ context: { note: '['.repeat(500) } }),
    });
    assert.doesNotMatch(text.text, /nests deeper/);
  });
});

describe('fuzz findings on PostgreSQL', { skip: await postgresUnreachable() }, () => {
  let p: TestProvider;
  const schemas: string[] = [];
  before(async () => {
    p = await startTestProvider({
      postgres: { url: TEST_DATABASE_URL, schema: schemaName('fuzz_nul', schemas) },
    });
  });
  after(async () => {
    await p.close();
    await dropSchemas(schemas);
  });

  it('an id holding U+0000 is an id the store does not hold, not a 500', async () => {
    // seed 6 on PostgreSQL, inputs 1363, 2273, 4686, 7225, 10819, …: PostgreSQL refuses a text
    // parameter holding U+0000 ("invalid byte sequence for encoding UTF8: 0x00").
    const revoke = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: 'ppx:grant:\u0000' },
    });
    assert.equal(revoke.status, 404, revoke.text);
    const token = await api(p.url, '/oauth/token', {
      body: 'grant_type=authorization_code&client_id=a%00b&code=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(token.status, 401, token.text);
    assert.equal(token.json.error, 'invalid_client');
    const { token: grantToken } = await p.grant({ purposes: ['matching'] });
    const view = await api(p.url, '/v1/derived-views/compatibility', {
      token: grantToken,
      body: { counterpart_grant_id: 'ppx:grant:\u0000' },
    });
    assert.ok(view.status === 404 || view.status === 400, view.text);
    assert.equal((await api(p.url, '/healthz')).status, 200);
  });
});
