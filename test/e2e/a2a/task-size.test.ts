import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState as State, type Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import type { Claim } from '../../../src/model/claim.ts';
import { TASK_CAP_BYTES, TASK_CAP_COUNT } from '../../../src/operations/a2a/tasks.ts';
import { A2UI_EXTENSION, A2UI_MIME } from '../../../src/surfaces/a2a/a2ui-parts.ts';
import { a2aClient, a2aGrant, ask, bearerFetch, isTask } from '../../support/a2a-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Issue 22 item 11: a stored A2A task keeps the PPX result only (the A2UI parts are drawn again
// from it on every read that asks for them), and what one grant keeps is capped: at most
// TASK_CAP_COUNT tasks and TASK_CAP_BYTES of task bodies, the oldest going first.

/** A claim of about 200 KB: a map of many named entries, which A2UI draws a row each. */
function bigClaim(): Claim {
  const value: Record<string, number> = {};
  for (let i = 0; i < 5000; i++) value[`family_${String(i).padStart(5, '0')}_${'x'.repeat(20)}`] = 0.5;
  return {
    claim_id: 'ppx:claim:big-families',
    type: 'preference',
    namespace: 'fragrance',
    key: 'family_preference',
    value,
    value_type: 'map<string,float>',
    confidence: 0.8,
    source: { kind: 'user_stated' },
  } as Claim;
}

/** An SDK client that asks for the A2UI extension on every call. */
async function drawingClient(p: TestProvider, token: string): Promise<Client> {
  const withToken = bearerFetch(token);
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('A2A-Extensions', A2UI_EXTENSION);
    return withToken(input, { ...init, headers });
  };
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  }).createFromUrl(p.url);
}

const drawnParts = (task: Task) =>
  (task.artifacts[0]?.parts ?? []).filter(
    (x) => x.mediaType === A2UI_MIME || x.metadata?.['mimeType'] === A2UI_MIME,
  );

const listing = (client: Client, includeArtifacts: boolean) =>
  client.listTasks({
    tenant: '',
    contextId: '',
    status: State.TASK_STATE_UNSPECIFIED,
    pageSize: 100,
    pageToken: '',
    historyLength: 0,
    statusTimestampAfter: undefined,
    includeArtifacts,
  });

describe('A2A preference agent: what a task keeps, and how much one grant may keep', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
    const profile = await p.store.getProfileBySubject(p.subjectId);
    await p.store.putClaims(profile!.profile_id, [bigClaim()]);
  });
  after(async () => p.close());

  /** The bodies the store keeps for a grant, in bytes, and how many. */
  async function kept(grantId: string): Promise<{ bytes: number; count: number; bodies: string[] }> {
    const page = await p.deps.store.listA2aTasks(grantId, { pageSize: 100 });
    const bodies = page.tasks.map((t) => t.body);
    return { bytes: bodies.reduce((n, b) => n + Buffer.byteLength(b), 0), count: page.total, bodies };
  }

  it('a task is stored with the PPX result only; its A2UI parts are drawn again when read with the extension', async () => {
    const { grant, token } = await a2aGrant(p);
    const client = await drawingClient(p, token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const drawn = drawnParts(sent);
    assert.ok(drawn.length > 0, 'the answer carries its A2UI parts');
    const stored = await p.deps.store.getA2aTask(sent.id, grant.grant_id);
    assert.ok(stored);
    const body = JSON.parse(stored.body) as { artifacts: { parts: unknown[] }[] };
    assert.equal(body.artifacts[0]?.parts.length, 1, 'stored: the PPX object alone');
    assert.ok(!stored.body.includes(A2UI_MIME), 'no A2UI in the stored task');

    const again = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    assert.deepEqual(drawnParts(again).length, drawn.length, 'GetTask draws them again');
    assert.deepEqual(again.artifacts[0]?.parts[0], sent.artifacts[0]?.parts[0]);
    const plain = await a2aClient(p, token);
    const undrawn = await plain.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    assert.equal(undrawn.artifacts[0]?.parts.length, 1, 'without the extension: the PPX object only');
    const withArtifacts = await listing(client, true);
    assert.equal(drawnParts(withArtifacts.tasks[0]!).length, drawn.length, 'ListTasks draws them too');
  });

  it('ListTasks gives artifacts only when asked to include them (A2A ListTasksRequest.includeArtifacts)', async () => {
    const { token } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const bare = await listing(client, false);
    assert.deepEqual(
      bare.tasks.map((t) => [t.id, t.artifacts.length]),
      [[sent.id, 0]],
    );
    const full = await listing(client, true);
    assert.equal(full.tasks[0]?.artifacts.length, 1);
  });

  it('what one grant keeps stays under the cap: the oldest tasks go first, the newest is always there', async () => {
    const { grant, token } = await a2aGrant(p);
    const client = await drawingClient(p, token);
    let last: Task | undefined;
    let most = 0;
    for (let i = 0; i < 14; i++) {
      const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
      assert.ok(isTask(sent));
      last = sent;
      const now = await kept(grant.grant_id);
      most = Math.max(most, now.bytes);
      assert.ok(now.bytes <= TASK_CAP_BYTES, `${now.bytes} bytes kept after ${i + 1} calls`);
    }
    assert.ok(most > TASK_CAP_BYTES / 2, 'the cap was reached, so the trimming was tested');
    const got = await client.getTask({ tenant: '', id: last!.id, historyLength: 0 });
    assert.equal(got.id, last!.id);
    const { count } = await kept(grant.grant_id);
    assert.ok(count < 14, `${count} tasks kept`);
  });

  it('at most TASK_CAP_COUNT tasks per grant, however small', async () => {
    const { grant, token } = await a2aGrant(p, { allowed_namespaces: ['core'] });
    const client = await a2aClient(p, token);
    for (let i = 0; i < TASK_CAP_COUNT + 5; i++) {
      const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
      assert.ok(isTask(sent));
    }
    assert.equal((await kept(grant.grant_id)).count, TASK_CAP_COUNT);
  });
});
