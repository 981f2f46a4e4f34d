import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState as State } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { importProfile } from '../../../src/operations/export-import/import-profile.ts';
import type { GrantDraft } from '../../../src/operations/grants/consent-grants.ts';
import { demoProfile } from '../../../src/operations/seed/demo-profile.ts';
import { issueSubjectToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { a2aClient, a2aGrant, ask, isTask, resultOf } from '../../support/a2a-client.ts';
import { importSecondSubject, SECOND_SUBJECT } from '../../support/derived-views.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Issue 22 item 1: a person's deletion removes exactly the stored A2A tasks that could hold what
// was deleted (the tasks of grants that could see it), and nothing else. A claim outside a grant
// must be indistinguishable from an absent one, so deleting it changes nothing a grantee sees:
// GetTask, ListTasks and the 0.3 tasks/get all answer as before.

const list = (client: Client) =>
  client.listTasks({
    tenant: '',
    contextId: '',
    status: State.TASK_STATE_UNSPECIFIED,
    pageSize: 50,
    pageToken: '',
    historyLength: 0,
    statusTimestampAfter: undefined,
    includeArtifacts: true,
  });

describe('A2A preference agent: a deletion removes the tasks that could hold it, no others', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  const remove = async (path: string) => {
    const r = await api(p.url, path, { token: p.subjectToken, method: 'DELETE' });
    assert.equal(r.status, 200, r.text);
  };

  /** The 0.3 `tasks/get` of a task, as the SDK's 0.3 client sends it (no A2A-Version header). */
  const legacyGet = async (token: string, id: string) => {
    const r = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id } }),
    });
    return (await r.json()) as { result?: { id: string }; error?: { code: number } };
  };

  it('deleting a claim or an area outside the grant leaves its tasks as they were; deleting one inside removes them', async () => {
    // fragrance-demo: core + fragrance, used in the fragrance domain.
    const { token } = await a2aGrant(p, { allowed_operations: ['read', 'query'] });
    const client = await a2aClient(p, token);
    const sent = await client.sendMessage(
      ask('scoped_query', { requested_namespaces: ['core', 'fragrance'] }),
    );
    assert.ok(isTask(sent));
    assert.equal(sent.status?.state, State.TASK_STATE_COMPLETED, JSON.stringify(sent.status));
    const before = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    const listed = await list(client);
    assert.equal(listed.tasks.length, 1);
    assert.equal((await legacyGet(token, sent.id)).result?.id, sent.id);

    // Outside the grant: a travel claim, then the whole travel area.
    await remove(`/v1/profile/claims/${encodeURIComponent('ppx:claim:demo-travel-days')}`);
    await remove('/v1/profile/namespaces/travel');
    const after = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    assert.deepEqual(resultOf(after), resultOf(before), 'the task is unchanged');
    assert.deepEqual(
      (await list(client)).tasks.map((t) => t.id),
      [sent.id],
    );
    assert.equal((await list(client)).totalSize, 1);
    assert.equal((await legacyGet(token, sent.id)).result?.id, sent.id);

    // Inside the grant: a fragrance claim the task's answer held.
    const held = (resultOf(sent) as { claims: { claim_id: string }[] }).claims.map((c) => c.claim_id);
    assert.ok(held.includes('ppx:claim:demo-frag-intensity'));
    await remove(`/v1/profile/claims/${encodeURIComponent('ppx:claim:demo-frag-intensity')}`);
    await assert.rejects(client.getTask({ tenant: '', id: sent.id, historyLength: 0 }), /not found/i);
    assert.equal((await list(client)).totalSize, 0);
    assert.equal((await legacyGet(token, sent.id)).error?.code, -32001);
  });

  it('a grant of another area keeps its tasks when a claim it could not see goes; the grant that could see it loses its own', async () => {
    const fragrance = await a2aGrant(p, {
      allowed_namespaces: ['fragrance'],
      allowed_domains: ['fragrance'],
    });
    const core = await a2aGrant(p, { allowed_namespaces: ['core'], allowed_domains: ['fragrance'] });
    const a = await a2aClient(p, fragrance.token);
    const b = await a2aClient(p, core.token);
    const ta = await a.sendMessage(ask('get_effective_profile', { context: {} }));
    const tb = await b.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(ta) && isTask(tb));
    await remove(`/v1/profile/claims/${encodeURIComponent('ppx:claim:demo-core-budget')}`);
    assert.equal((await a.getTask({ tenant: '', id: ta.id, historyLength: 0 })).id, ta.id);
    await assert.rejects(b.getTask({ tenant: '', id: tb.id, historyLength: 0 }), /not found/i);
  });

  it('importing over the profile (import --replace) removes every task of the person’s grants', async () => {
    const { grant, token } = await a2aGrant(p, { allowed_namespaces: ['core'] });
    const client = await a2aClient(p, token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    const imported = await importProfile(p.deps, demoProfile(new Date()), { replace: true });
    assert.ok(imported.ok, JSON.stringify(imported));
    assert.equal(await p.deps.store.getA2aTask(sent.id, grant.grant_id), undefined);
    await assert.rejects(client.getTask({ tenant: '', id: sent.id, historyLength: 0 }), /not found/i);
  });

  it('deleting the whole profile removes every task of the person’s grants', async () => {
    const { token } = await a2aGrant(p, { allowed_namespaces: ['fragrance'] });
    const client = await a2aClient(p, token);
    const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(sent));
    await remove('/v1/profile');
    assert.equal((await list(client)).totalSize, 0);
  });
});

describe('A2A preference agent: a deletion reaches the compatibility views that drew on it', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
    await importSecondSubject(p);
  });
  after(async () => p.close());

  const MATCHING: Partial<GrantDraft> = {
    purposes: ['matching'],
    allowed_domains: ['dating'],
    allowed_namespaces: ['core'],
  };

  it('a counterpart’s deletion removes the completed views that drew on a grant that could see it, and no others', async () => {
    const mine = await a2aGrant(p, MATCHING);
    const theirs = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT });
    const client = await a2aClient(p, mine.token);
    const view = await client.sendMessage(
      ask('compatibility_view', { counterpart_grant_id: theirs.grant.grant_id, context: {} }),
    );
    assert.ok(isTask(view));
    assert.equal(view.status?.state, State.TASK_STATE_COMPLETED);
    const plain = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(plain));
    // A view naming a grant of that person held by another client is refused; it drew on nothing,
    // so that person's deletions must not reach it (or it would be a window on them).
    const others = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT, client_id: 'travel-demo' });
    const refused = await client.sendMessage(
      ask('compatibility_view', { counterpart_grant_id: others.grant.grant_id, context: {} }),
    );
    assert.ok(isTask(refused));
    assert.equal(refused.status?.state, State.TASK_STATE_FAILED);
    const second = (await issueSubjectToken(p.deps, SECOND_SUBJECT)).access_token;
    const remove = async (claimId: string) => {
      const r = await api(p.url, `/v1/profile/claims/${encodeURIComponent(claimId)}`, {
        token: second,
        method: 'DELETE',
      });
      assert.equal(r.status, 200, r.text);
    };
    // Outside the counterpart grant (fragrance): nothing changes.
    await remove('ppx:claim:compat-fragrance-intensity_preference');
    assert.equal((await client.getTask({ tenant: '', id: view.id, historyLength: 0 })).id, view.id);
    // Inside it (core): the view that drew on it goes; the caller's own profile read stays.
    await remove('ppx:claim:compat-novelty_tolerance');
    await assert.rejects(client.getTask({ tenant: '', id: view.id, historyLength: 0 }), /not found/i);
    assert.equal((await client.getTask({ tenant: '', id: plain.id, historyLength: 0 })).id, plain.id);
    assert.equal((await client.getTask({ tenant: '', id: refused.id, historyLength: 0 })).id, refused.id);
  });
});
