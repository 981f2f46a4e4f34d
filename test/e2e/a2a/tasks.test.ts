import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState as State } from '@a2a-js/sdk';
import { RESULT_TTL_MS } from '../../../src/surfaces/a2a/task-store.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { a2aClient, a2aGrant, ask, isTask, resultOf } from './helpers.ts';

// Tasks of the preference agent with @a2a-js/sdk's client: streaming, retrieval and listing (a
// grantee sees its own tasks only: another grant's task is "not found", exactly as a missing
// one), cancelling, and tasks kept in the provider's store.

describe('A2A preference agent: tasks', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  const list = (client: Awaited<ReturnType<typeof a2aClient>>, contextId = '') =>
    client.listTasks({
      tenant: '',
      contextId,
      status: State.TASK_STATE_UNSPECIFIED,
      pageSize: 50,
      pageToken: '',
      historyLength: 0,
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    });

  it('streams: SendStreamingMessage yields the completed task with the PPX object', async () => {
    const { token } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const events = [];
    for await (const event of client.sendMessageStream(ask('get_effective_profile', { context: {} })))
      events.push(event);
    assert.ok(events.length >= 1);
    const last = events.at(-1);
    const task = last?.payload?.$case === 'task' ? last.payload.value : undefined;
    assert.ok(task, JSON.stringify(events).slice(0, 300));
    assert.equal(task.status?.state, State.TASK_STATE_COMPLETED);
    assert.ok(Array.isArray((resultOf(task) as { claims: unknown[] }).claims));
  });

  it('GetTask gives the task back, from the provider’s store; another grant’s task is not found, like a missing one', async () => {
    const mine = await a2aGrant(p);
    const other = await a2aGrant(p);
    const client = await a2aClient(p, mine.token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const again = await client.getTask({ tenant: '', id: sent.id, historyLength: 10 });
    assert.equal(again.id, sent.id);
    assert.deepEqual(resultOf(again), resultOf(sent));
    const stored = await p.deps.store.getA2aTask(sent.id, mine.grant.grant_id);
    assert.ok(stored, 'kept in the store, owned by the grant');
    const theirs = await a2aClient(p, other.token);
    const refusal = await theirs
      .getTask({ tenant: '', id: sent.id, historyLength: 0 })
      .catch((e: Error) => e);
    const missing = await theirs
      .getTask({ tenant: '', id: 'no-such-task', historyLength: 0 })
      .catch((e: Error) => e);
    assert.ok(refusal instanceof Error && missing instanceof Error);
    assert.equal(refusal.constructor.name, missing.constructor.name);
    assert.equal(refusal.message.replace(sent.id, 'X'), missing.message.replace('no-such-task', 'X'));
  });

  it('ListTasks shows a grantee its own tasks only', async () => {
    const mine = await a2aGrant(p);
    const other = await a2aGrant(p);
    const a = await a2aClient(p, mine.token);
    const b = await a2aClient(p, other.token);
    const sent = await a.sendMessage(ask('get_effective_profile', { context: {} }));
    await b.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const ownList = await list(a);
    assert.deepEqual(
      ownList.tasks.map((t) => t.id),
      [sent.id],
    );
    assert.equal(ownList.totalSize, 1);
    const byContext = await list(a, sent.contextId);
    assert.deepEqual(
      byContext.tasks.map((t) => t.id),
      [sent.id],
    );
    const theirs = await list(b);
    assert.ok(!theirs.tasks.some((t) => t.id === sent.id));
  });

  it('CancelTask of a finished task is refused (not cancelable); of another grant’s task, not found', async () => {
    const mine = await a2aGrant(p);
    const other = await a2aGrant(p);
    const client = await a2aClient(p, mine.token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    await assert.rejects(client.cancelTask({ tenant: '', id: sent.id, metadata: undefined }), /cancel/i);
    const theirs = await a2aClient(p, other.token);
    await assert.rejects(theirs.cancelTask({ tenant: '', id: sent.id, metadata: undefined }), /not found/i);
  });
});

describe('A2A preference agent: how long a task holds its result', () => {
  let p: TestProvider;
  let now = Date.now();
  before(async () => {
    p = await startTestProvider({ clock: () => new Date(now) });
  });
  after(async () => p.close());

  it('a task older than RESULT_TTL_MS is given back without its result, marked result_expired', async () => {
    const { token } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const fresh = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    assert.equal(fresh.artifacts.length, 1);
    now += RESULT_TTL_MS + 1000;
    const old = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    assert.equal(old.artifacts.length, 0, 'no claim values once the result is old');
    assert.equal(old.metadata?.result_expired, true);
    assert.equal(old.status?.state, State.TASK_STATE_COMPLETED);
  });
});
