import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { a2aGrant } from '../../support/a2a-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Issue 25 item 5, A2A 1.0.1 (its changelog: versions negotiated on Major.Minor only, JSON-RPC
// error details as `@type`d objects in `error.data`, application/a2a+json preferred): the card
// says `1.0`, never a patch number; `A2A-Version: 1.0.1` is 1.0; a version not spoken is -32009
// with a google.rpc.ErrorInfo; a body sent as application/a2a+json is read.

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are checked member by member
type Any = any;

describe('A2A preference agent: A2A 1.0.1', () => {
  let p: TestProvider;
  let token = '';
  before(async () => {
    p = await startTestProvider();
    token = (await a2aGrant(p)).token;
  });
  after(async () => p.close());

  const send = async (headers: Record<string, string>) => {
    const r = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: {
          message: {
            messageId: `m-${Math.random()}`,
            role: 'ROLE_USER',
            parts: [
              {
                data: { method: 'get_effective_profile', params: { context: {} } },
                mediaType: 'application/json',
              },
            ],
          },
        },
      }),
    });
    return { status: r.status, json: (await r.json()) as Any };
  };

  it('the card names the protocol as Major.Minor: 1.0', async () => {
    const card = (await (
      await fetch(`${p.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0.1' } })
    ).json()) as Any;
    assert.deepEqual(
      card.supportedInterfaces.map((i: Any) => i.protocolVersion),
      ['1.0'],
      'A2A-Version 1.0.1 gets the 1.0 card',
    );
  });

  it('A2A-Version 1.0.1 is 1.0: the patch number is not considered', async () => {
    const r = await send({ 'A2A-Version': '1.0.1' });
    assert.equal(
      r.json.result?.task?.status?.state,
      'TASK_STATE_COMPLETED',
      JSON.stringify(r.json).slice(0, 300),
    );
  });

  it('a version not spoken is -32009 with a google.rpc.ErrorInfo in error.data', async () => {
    const r = await send({ 'A2A-Version': '2.0' });
    assert.equal(r.json.error.code, -32009);
    assert.deepEqual(r.json.error.data, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'VERSION_NOT_SUPPORTED',
        domain: 'a2a-protocol.org',
      },
    ]);
  });

  it('a body sent as application/a2a+json is read', async () => {
    const r = await send({ 'A2A-Version': '1.0', 'Content-Type': 'application/a2a+json' });
    assert.equal(r.status, 200);
    assert.equal(r.json.result?.task?.status?.state, 'TASK_STATE_COMPLETED');
  });
});
