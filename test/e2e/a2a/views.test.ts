import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantDraft } from '../../../src/operations/grants/consent-grants.ts';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { a2aClient, ask, errorOf, isTask, resultOf, TaskState } from '../../support/a2a-client.ts';
import { importSecondSubject, SECOND_RAW, SECOND_SUBJECT } from '../../support/derived-views.ts';
import { connect } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// compatibility_view over A2A (WIRE-NOTES §6): a counterpart grant of another subject held by the
// same grantee, both for `matching`; one held by another client is not found, exactly as one that
// does not exist. And parity: A2A, MCP and HTTP give the same claims under one grant and context.

const MATCHING: Partial<GrantDraft> = {
  purposes: ['matching'],
  allowed_domains: ['dating'],
  allowed_namespaces: ['core'],
};

describe('A2A preference agent: derived views and parity', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
    await importSecondSubject(p);
  });
  after(async () => p.close());

  const tokenFor = async (grant: { grant_id: string; grantee_id: string }, path: string) =>
    (await issueGrantToken(p.deps, grant, 600, `${p.url}${path}`)).access_token;

  it('compatibility_view with a counterpart grant of the same client: a derived view, no raw value of either', async () => {
    const a = await p.grant(MATCHING);
    const b = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT });
    const client = await a2aClient(p, await tokenFor(a.grant, '/a2a'));
    const answer = await client.sendMessage(
      ask('compatibility_view', { counterpart_grant_id: b.grant.grant_id, context: {} }),
    );
    assert.ok(isTask(answer));
    assert.equal(answer.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(errorOf(answer)));
    const view = resultOf(answer) as { view_kind: string; signals: Record<string, number> };
    assert.equal(view.view_kind, 'compatibility');
    assert.ok('overall_alignment' in view.signals);
    const text = JSON.stringify(view);
    for (const raw of SECOND_RAW) assert.ok(!text.includes(raw), raw);
    assert.ok(!text.includes(b.grant.grant_id), 'the view does not echo the counterpart grant');
  });

  it('a counterpart grant held by another client is refused exactly like one that does not exist', async () => {
    const a = await p.grant(MATCHING);
    const theirs = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT, client_id: 'travel-demo' });
    const client = await a2aClient(p, await tokenFor(a.grant, '/a2a'));
    const held = await client.sendMessage(
      ask('compatibility_view', { counterpart_grant_id: theirs.grant.grant_id, context: {} }),
    );
    const none = await client.sendMessage(
      ask('compatibility_view', { counterpart_grant_id: 'ppx:grant:nope', context: {} }),
    );
    assert.ok(isTask(held) && isTask(none));
    assert.equal(held.status?.state, TaskState.TASK_STATE_FAILED);
    // The same refusal, word for word but the id each names (the caller's own input).
    const words = (task: typeof held, id: string) => JSON.stringify(errorOf(task)).replace(id, 'ID');
    assert.equal(words(held, theirs.grant.grant_id), words(none, 'ppx:grant:nope'));
  });

  it('parity: A2A, MCP and HTTP give the same claims under the same grant and context', async () => {
    const { grant } = await p.grant();
    const context = { occasion: 'evening' };
    const http = await api(p.url, '/v1/profile/effective', {
      token: await tokenFor(grant, ''),
      body: { context },
    });
    assert.equal(http.status, 200, http.text);
    const mcp = await connect(p, await tokenFor(grant, '/mcp'));
    const tool = (await mcp.callTool({
      name: 'ppx_get_effective_profile',
      arguments: { context },
    })) as unknown as {
      structuredContent: { data: { claims: unknown[] } };
    };
    const viaMcp = tool.structuredContent.data;
    await mcp.close();
    const a2a = await a2aClient(p, await tokenFor(grant, '/a2a'));
    const task = await a2a.sendMessage(ask('get_effective_profile', { context }));
    assert.ok(isTask(task));
    const claims = (resultOf(task) as { claims: unknown[] }).claims;
    const byId = (list: unknown[]) =>
      [...(list as { claim_id: string }[])].sort((x, y) => x.claim_id.localeCompare(y.claim_id));
    assert.deepEqual(byId(claims), byId(http.json.claims));
    assert.deepEqual(byId(viaMcp.claims), byId(http.json.claims));
  });
});
