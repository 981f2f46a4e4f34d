import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState as State } from '@a2a-js/sdk';
import { pruneA2aTaskRows, TASK_RETENTION_MS } from '../../../src/operations/a2a/tasks.ts';
import { issueGrantToken, issueSubjectToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { RESULT_TTL_MS } from '../../../src/surfaces/a2a/task-store.ts';
import { a2aClient, a2aGrant, ask, isTask, resultOf } from '../../support/a2a-client.ts';
import { auditAfter, auditMark } from '../../support/audit.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

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

  it('audits each send once, as the read of its grant, by the time it is answered; the task’s save adds no event', async () => {
    const { grant, token } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const mark = await auditMark(p);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const events = await auditAfter(p, mark);
    assert.deepEqual(
      events.map((e) => [e.action, e.grant_id, e.actor.kind]),
      [['effective', grant.grant_id, 'grantee']],
    );
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

  it('the rows go after a day (the hourly retention), and at once when the person deletes claims', async () => {
    const { token, grant } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const first = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(first));
    now += TASK_RETENTION_MS + 1000;
    assert.ok((await pruneA2aTaskRows(p.deps)) >= 1);
    assert.equal(await p.deps.store.getA2aTask(first.id, grant.grant_id), undefined);

    // A day later the first token has expired: a fresh one for the same grant.
    const fresh = (await issueGrantToken(p.deps, grant, undefined, `${p.url}/a2a`)).access_token;
    const again = await a2aClient(p, fresh);
    const second = await again.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(second));
    const claimId = (resultOf(second) as { claims: { claim_id: string }[] }).claims[0]!.claim_id;
    const deleted = await api(p.url, `/v1/profile/claims/${encodeURIComponent(claimId)}`, {
      token: (await issueSubjectToken(p.deps, p.subjectId)).access_token,
      method: 'DELETE',
    });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(
      await p.deps.store.getA2aTask(second.id, grant.grant_id),
      undefined,
      'the deleted claim lives on nowhere',
    );
    await assert.rejects(again.getTask({ tenant: '', id: second.id, historyLength: 0 }), /not found/i);
  });
});

describe('A2A preference agent: streams on both versions', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  it('SubscribeToTask of a finished task says in words that it cannot be followed', async () => {
    const { token } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const seen: unknown[] = [];
    const outcome = await (async () => {
      for await (const event of client.resubscribeTask({ tenant: '', id: sent.id })) seen.push(event);
    })().catch((e: Error) => e);
    assert.ok(outcome instanceof Error, `refused, not ${JSON.stringify(seen).slice(0, 100)}`);
    assert.match(outcome.message, /terminal state/);
    // On the wire: an ordinary JSON-RPC error (never a 500, nor a connection dropped).
    const raw = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sub', method: 'SubscribeToTask', params: { id: sent.id } }),
    });
    assert.equal(raw.status, 200);
    const body = (await raw.json()) as { id: string; error: { code: number; message: string } };
    assert.equal(body.id, 'sub');
    assert.match(body.error.message, /terminal state/);
  });

  it('0.3 message/stream answers SSE events in the 0.3 shape, ending with the completed task', async () => {
    const { token } = await a2aGrant(p);
    const r = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'st',
        method: 'message/stream',
        params: {
          message: {
            kind: 'message',
            messageId: 'm-stream-03',
            role: 'user',
            parts: [{ kind: 'data', data: { method: 'get_effective_profile', params: {} } }],
          },
        },
      }),
    });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
    const events = (await r.text())
      .split('\n\n')
      .filter((b) => b.startsWith('data: '))
      .map(
        (b) => JSON.parse(b.slice(6)) as { id: string; result: { kind: string; status?: { state: string } } },
      );
    assert.ok(events.length >= 1);
    assert.ok(events.every((e) => e.id === 'st'));
    const last = events.at(-1)!.result;
    assert.ok(last.kind === 'task' || last.kind === 'status-update', JSON.stringify(last).slice(0, 200));
    assert.equal(last.status?.state, 'completed');
  });
});
