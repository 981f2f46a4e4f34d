import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { A2UI_EXTENSION } from '../../../src/surfaces/a2a/a2ui-parts.ts';
import { a2aGrant } from '../../support/a2a-client.ts';
import { messageProblems } from '../../support/a2ui-oracles.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// The preference agent on the wire, for agents that do not use the SDK: the binding's literal
// form (`"method": "get_effective_profile"`, result = the PPX body), the A2A 0.3 method names on
// the same endpoint, and bad input answered with the standard JSON-RPC codes, never a 500.

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are checked member by member
type Any = any;

describe('A2A preference agent on the wire', () => {
  let p: TestProvider;
  let token = '';
  before(async () => {
    p = await startTestProvider();
    token = (await a2aGrant(p)).token;
  });
  after(async () => p.close());

  async function call(
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: Any; text: string }> {
    const r = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await r.text();
    let json: Any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: r.status, json, text };
  }

  it('the literal form: result is the PPX response body, an error carries the PPX code in data.error', async () => {
    const ok = await call({
      jsonrpc: '2.0',
      id: 7,
      method: 'get_effective_profile',
      params: { context: {} },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.id, 7);
    assert.ok(Array.isArray(ok.json.result.claims));
    assert.ok(ok.json.result.grant_id ?? ok.json.result.claims, 'the PPX effective profile itself');
    const bad = await call({
      jsonrpc: '2.0',
      id: 'x',
      method: 'get_effective_profile',
      params: { context: 5 },
    });
    assert.equal(bad.json.error.code, -32602);
    assert.equal(bad.json.error.data.error, 'invalid_request');
    assert.equal(typeof bad.json.error.message, 'string');
    const missing = await call({
      jsonrpc: '2.0',
      id: 1,
      method: 'compatibility_view',
      params: { counterpart_grant_id: 'ppx:grant:none', context: {} },
    });
    assert.ok(missing.json.error, missing.text);
    assert.ok(
      ['not_found', 'insufficient_scope'].includes(missing.json.error.data?.error) || missing.status === 403,
      missing.text,
    );
  });

  it('A2A 0.3 names on the same endpoint: message/send answers the 0.3 task shape, tasks/get finds it', async () => {
    const sent = await call({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'm-03',
          role: 'user',
          parts: [{ kind: 'data', data: { method: 'get_effective_profile', params: { context: {} } } }],
        },
      },
    });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.json.result.kind, 'task', sent.text);
    assert.equal(sent.json.result.status.state, 'completed');
    const part = sent.json.result.artifacts[0].parts[0];
    assert.equal(part.kind, 'data');
    assert.ok(Array.isArray(part.data.claims));
    const got = await call({
      jsonrpc: '2.0',
      id: 2,
      method: 'tasks/get',
      params: { id: sent.json.result.id },
    });
    assert.equal(got.json.result.id, sent.json.result.id, got.text);
    // metadata.skillId with a data part of params, in 1.0 JSON.
    const v1 = await call(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'SendMessage',
        params: {
          message: {
            messageId: 'm-10',
            role: 'ROLE_USER',
            metadata: { skillId: 'get_effective_profile' },
            parts: [{ data: { context: {} }, mediaType: 'application/json' }],
          },
        },
      },
      { 'A2A-Version': '1.0' },
    );
    assert.equal(v1.json.result.task.status.state, 'TASK_STATE_COMPLETED', v1.text);
  });

  it('with the A2UI extension asked for, a claim result also carries valid A2UI v0.8 messages of its ClaimCards', async () => {
    const send = (headers: Record<string, string>) =>
      call(
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'SendMessage',
          params: {
            message: {
              messageId: 'm-a2ui',
              role: 'ROLE_USER',
              parts: [
                {
                  data: { method: 'get_effective_profile', params: { context: {} } },
                  mediaType: 'application/json',
                },
              ],
            },
          },
        },
        { 'A2A-Version': '1.0', ...headers },
      );
    const plain = await send({});
    assert.equal(
      plain.json.result.task.artifacts[0].parts.length,
      1,
      'without the extension: the PPX object only',
    );
    const drawn = await send({ 'A2A-Extensions': A2UI_EXTENSION });
    const [ppx, ...ui] = drawn.json.result.task.artifacts[0].parts;
    assert.ok(Array.isArray(ppx.data.claims));
    assert.ok(ui.length >= ppx.data.claims.length * 2, 'a surface per claim');
    for (const part of ui) {
      assert.equal(part.metadata.mimeType, 'application/json+a2ui');
      assert.deepEqual(messageProblems(part.data), [], JSON.stringify(part.data).slice(0, 200));
    }
    const kinds = new Set(ui.map((part: Any) => Object.keys(part.data)[0]));
    assert.deepEqual([...kinds].sort(), ['beginRendering', 'dataModelUpdate', 'surfaceUpdate']);
  });

  it('bad input gets the standard JSON-RPC codes (and a PPX code where one applies), never a 500', async () => {
    const message = (parts: unknown[], metadata?: unknown) => ({
      jsonrpc: '2.0',
      id: 9,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts, ...(metadata ? { metadata } : {}) } },
    });
    const cases: [unknown, number, RegExp?][] = [
      ['{"jsonrpc":', -32700],
      ['[]', -32600, /batch/],
      [[{ jsonrpc: '2.0', id: 1, method: 'GetTask' }], -32600, /batch/],
      ['"hello"', -32600],
      [{ id: 1, method: 'GetTask' }, -32600, /jsonrpc/],
      [{ jsonrpc: '2.0', id: 1, method: 42 }, -32600, /method/],
      [{ jsonrpc: '2.0', id: 1, method: 'get_effective_profile', params: [1] }, -32602],
      [{ jsonrpc: '2.0', id: 1, method: 'tasks/drop' }, -32601],
      [{ jsonrpc: '2.0', id: 1, method: 'DropTables' }, -32601],
      [message([{ data: { method: 'no_such_skill', params: {} } }]), -32602, /no skill "no_such_skill"/],
      [
        message([{ data: { method: 'get_effective_profile', params: { context: 'evening' } } }]),
        -32602,
        /context/,
      ],
      [message([{ text: 'what does she like?' }]), -32602, /which skill/],
      [message([{ weird: true }]), -32602, /no kind/],
      [message([{ url: 'https://elsewhere.example/x' }]), -32602, /files/],
      [message([]), -32602, /no parts/],
      [message([{ data: {} }], { skillId: 7 }), -32602, /skillId/],
      [{ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, -32602],
    ];
    for (const [body, code, words] of cases) {
      const r = await call(body);
      const what = `${JSON.stringify(body).slice(0, 100)} -> ${r.status} ${r.text.slice(0, 200)}`;
      assert.ok(r.status < 500, what);
      assert.equal(r.json?.error?.code, code, what);
      if (words) assert.match(r.json.error.message, words, what);
      if (code === -32602 && r.json.error.data)
        assert.equal(r.json.error.data.error, 'invalid_request', what);
    }
    const huge = await call({
      jsonrpc: '2.0',
      id: 1,
      method: 'get_effective_profile',
      params: { context: { x: 'y'.repeat(300_000) } },
    });
    assert.equal(huge.status, 413, huge.text);
    assert.equal(huge.json.error.code, -32600);
    const plain = await call('{}', { 'Content-Type': 'text/plain' });
    assert.ok(plain.status === 415, plain.text);
    const get = await fetch(`${p.url}/a2a`);
    assert.equal(get.status, 405);
  });
});
