import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { directSendCount } from '../../../src/surfaces/a2a/direct-send.ts';
import { a2aClient, a2aGrant, ask, isTask, resultOf } from '../../support/a2a-client.ts';
import { testClock } from '../../support/clock.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// A plain blocking SendMessage that starts a task is answered by the provider itself, not by the
// SDK's request handler (src/surfaces/a2a/direct-send.ts): the answer and the task it keeps must
// be the SDK's. Each send goes twice, once plain (answered directly) and once with a history
// length, which changes nothing for a task of one message but sends it the SDK's way; the two
// answers, and the two tasks as GetTask gives them back, must be the same but for the task's new
// ids. The clock stands still, so both reads and both tasks are of one instant.

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are read member by member
type Any = any;

interface Sent {
  readonly status: number;
  readonly type: string | null;
  readonly text: string;
  readonly json: Any;
}

describe('A2A SendMessage answered directly: the SDK answer and task', () => {
  let p: TestProvider;
  let token = '';
  before(async () => {
    p = await startTestProvider({ clock: testClock().clock });
    token = (await a2aGrant(p)).token;
  });
  after(() => p.close());

  async function post(body: unknown, as = token): Promise<Sent> {
    const r = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${as}`, 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, type: r.headers.get('content-type'), text, json: JSON.parse(text) };
  }

  /** The text with the task's own ids (new each send) named by their role. */
  function idless(text: string, task: Any): string {
    return text.replaceAll(task.id, 'TASK-ID').replaceAll(task.contextId, 'CONTEXT-ID');
  }

  /** `params` sent plainly and with a history length; both answers, and both tasks read back. */
  async function bothWays(id: unknown, params: Record<string, unknown>, as = token): Promise<[Sent, Sent]> {
    const before = directSendCount();
    const direct = await post({ jsonrpc: '2.0', id, method: 'SendMessage', params }, as);
    assert.equal(directSendCount(), before + 1, 'the plain send was answered directly');
    const configuration = { ...(params['configuration'] as object), historyLength: 10 };
    const sdk = await post(
      { jsonrpc: '2.0', id, method: 'SendMessage', params: { ...params, configuration } },
      as,
    );
    assert.equal(directSendCount(), before + 1, 'the send with a history length went to the SDK');
    assert.equal(direct.status, sdk.status);
    assert.equal(direct.type, sdk.type);
    const [a, b] = [direct.json.result.task, sdk.json.result.task];
    assert.equal(idless(direct.text, a), idless(sdk.text, b));
    // What each kept: GetTask gives the same task back, but for its ids.
    const kept = await Promise.all(
      [a, b].map((task: Any) =>
        post({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }, as),
      ),
    );
    assert.equal(kept[0]!.json.result.id, a.id);
    assert.equal(idless(kept[0]!.text, a), idless(kept[1]!.text, b));
    return [direct, sdk];
  }

  function message(skill: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return {
      message: {
        messageId: `m-${Math.random()}`,
        role: 'ROLE_USER',
        parts: [{ data: { method: skill, params }, mediaType: 'application/json' }],
        ...extra,
      },
    };
  }

  it('a completed task holding the effective profile', async () => {
    const [direct] = await bothWays(
      7,
      message('get_effective_profile', { context: { occasion: 'date_night' } }),
    );
    const task = direct.json.result.task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.ok(task.artifacts[0].parts[0].data.claims.length > 0);
  });

  it('a string id, a null id, a context id of the caller, metadata, the SDK client configuration', async () => {
    await bothWays('call-1', message('get_effective_profile', {}));
    await bothWays(null, message('scoped_query', { requested_namespaces: ['core'] }));
    const [given] = await bothWays(2, message('get_effective_profile', {}, { contextId: 'ctx-of-mine' }));
    assert.equal(given.json.result.task.contextId, 'ctx-of-mine');
    await bothWays(3, { ...message('get_effective_profile', {}), metadata: { note: 'x' } });
    await bothWays(4, { ...message('get_effective_profile', {}), configuration: {} });
    await bothWays(5, {
      ...message('get_effective_profile', {}),
      configuration: { acceptedOutputModes: ['application/json'] },
    });
  });

  it('a failed task carrying the PPX error body', async () => {
    const matching = await a2aGrant(p, { purposes: ['matching'], allowed_domains: ['dating'] });
    const [direct] = await bothWays(
      8,
      message('compatibility_view', { counterpart_grant_id: 'ppx:grant:does-not-exist', context: {} }),
      matching.token,
    );
    assert.equal(direct.json.result.task.status.state, 'TASK_STATE_FAILED');
  });

  it('the SDK client is answered directly, and reads its task as before', async () => {
    const before = directSendCount();
    const client = await a2aClient(p, token);
    const answer = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.equal(directSendCount(), before + 1);
    assert.ok(isTask(answer));
    const claims = (resultOf(answer) as { claims: unknown[] }).claims;
    assert.ok(claims.length > 0);
    const again = await client.getTask({ tenant: '', id: answer.id, historyLength: undefined });
    assert.deepEqual(resultOf(again), resultOf(answer));
  });

  it('a send that continues a task, names others or asks not to wait is left to the SDK', async () => {
    const before = directSendCount();
    await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: message('get_effective_profile', {}, { taskId: 'nope' }),
    });
    await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: message('get_effective_profile', {}, { referenceTaskIds: ['nope'] }),
    });
    await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { ...message('get_effective_profile', {}), configuration: { returnImmediately: true } },
    });
    await post({
      jsonrpc: '2.0',
      id: 1.5,
      method: 'SendMessage',
      params: message('get_effective_profile', {}),
    });
    await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: message('get_effective_profile', {}),
    });
    assert.equal(directSendCount(), before);
  });
});
