import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { a2aClient, a2aGrant, ask, errorOf, isTask, TaskState } from '../../../support/a2a-client.ts';
import { assertError } from '../../../support/http-api.ts';
import { mcpGrant, rawPost, toolCall } from '../../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import {
  confirm,
  proposalsOf,
  propose,
  proposed,
  readKey,
  storedClaims,
  WRITE_GRANT,
} from '../../../support/writeback.ts';

// Issue 22 item 2: the person-owned fields of a claim — whether the person sees it and may edit
// it, when they confirmed it, that they said it — are the person's alone. A grantee's write can
// neither set them nor claim them, on every surface that writes (one operation: propose_updates).

const HIDDEN = proposed('fragrance', 'freshness_preference', 0.12, { review: { user_visible: false } });
const LOCKED = proposed('fragrance', 'freshness_preference', 0.13, { review: { user_editable: false } });

describe('person-owned fields under a grantee’s write', () => {
  let p: TestProvider;
  let allow: { token: string; grant: { grant_id: string } };
  before(async () => {
    p = await startTestProvider();
    allow = await p.grant({ ...WRITE_GRANT, writeback_policy: 'allow' });
  });
  after(() => p.close());

  it('a grantee cannot hide a claim from the person or lock it: 400 invalid_request, nothing stored', async () => {
    const before_ = await storedClaims(p);
    for (const claim of [HIDDEN, LOCKED]) {
      const r = await propose(p, allow.token, [claim]);
      assertError(r, 400, 'invalid_request');
      assert.match(r.json.error_description, /cannot (hide|stop the person)/);
      assert.doesNotMatch(r.json.error_description, /user_visible: false|\{/);
    }
    assert.deepEqual(await storedClaims(p), before_);
    assert.equal((await readKey(p, p.subjectToken, 'fragrance.freshness_preference'))?.value, 0.6);
  });

  it('a grantee’s last_confirmed_at is dropped: the person never confirmed it', async () => {
    const r = await propose(p, allow.token, [
      proposed('fragrance', 'freshness_preference', 0.31, {
        lifecycle: { last_confirmed_at: '2026-12-04T10:00:00.000Z', decay_policy: 'linear' },
      }),
    ]);
    assert.equal(r.status, 200, r.text);
    const read = await readKey(p, p.subjectToken, 'fragrance.freshness_preference');
    assert.equal(read?.value, 0.31);
    assert.equal(read?.lifecycle?.last_confirmed_at, undefined);
    assert.equal(read?.lifecycle?.decay_policy, 'linear');
  });

  it('a grantee’s "the person said this" is kept as imported from it, and always waits for the person', async () => {
    const r = await propose(p, allow.token, [
      proposed('core', 'novelty_tolerance', 0.22, { source: { kind: 'user_stated', origin: 'chat' } }),
    ]);
    assert.equal(r.status, 202, r.text);
    const id = r.json.proposals[0].proposal_id;
    const stored = (await proposalsOf(p, 'pending')).find((x) => x.proposal_id === id);
    assert.deepEqual(stored?.claim.source, { kind: 'imported', origin: 'fragrance-demo' });
    assert.notEqual((await readKey(p, p.subjectToken, 'novelty_tolerance'))?.value, 0.22);
  });

  it('a grant’s confirm_update never reaches what the person said: 403 access_denied', async () => {
    const confirmer = await p.grant({ allowed_operations: ['read', 'confirm_update', 'propose_update'] });
    // demo-frag-aversions is user_stated (the person's own "Oud, Patchouli").
    assertError(
      await confirm(p, confirmer.token, [{ claim_id: 'ppx:claim:demo-frag-aversions', action: 'confirm' }]),
      403,
      'access_denied',
    );
    const queued = await propose(p, confirmer.token, [
      proposed('fragrance', 'note_aversions', ['vanilla'], { value_type: 'string_list' }),
    ]);
    assert.equal(queued.status, 202, queued.text);
    const id = queued.json.proposals[0].proposal_id;
    const r = await confirm(p, confirmer.token, [{ proposal_id: id, action: 'confirm' }]);
    assertError(r, 403, 'access_denied');
    assert.match(r.json.error_description, /only they can confirm it/);
    assert.deepEqual((await readKey(p, p.subjectToken, 'fragrance.note_aversions'))?.value, [
      'oud',
      'patchouli_heavy',
    ]);
    // A claim the person did not state: the grant may confirm it, as the person delegated.
    const fresh = await propose(p, confirmer.token, [proposed('fragrance', 'projection_tolerance', 0.7)]);
    assert.equal(fresh.status, 202, fresh.text);
    const applied = await confirm(p, confirmer.token, [
      { proposal_id: fresh.json.proposals[0].proposal_id, action: 'confirm' },
    ]);
    assert.equal(applied.status, 200, applied.text);
    assert.equal((await readKey(p, p.subjectToken, 'fragrance.projection_tolerance'))?.value, 0.7);
    // An edit by the grant cannot hide the claim either.
    const other = await propose(p, confirmer.token, [
      proposed('fragrance', 'occasion_bias', { office: 0.5 }, { value_type: 'map<string,float>' }),
    ]);
    const edited = await confirm(p, confirmer.token, [
      { proposal_id: other.json.proposals[0].proposal_id, action: 'edit', claim: HIDDEN },
    ]);
    assertError(edited, 400, 'invalid_request');
  });

  it('the same refusal over MCP and A2A (the same operation)', async () => {
    const { token } = await mcpGrant(p, { ...WRITE_GRANT, writeback_policy: 'allow' });
    const r = await rawPost(p, token, toolCall('ppx_propose_updates', { claims: [HIDDEN] }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.isError, true);
    assert.equal(r.json.result.structuredContent.error.code, 'invalid_request');

    const a2a = await a2aGrant(p, { ...WRITE_GRANT, writeback_policy: 'allow' });
    const client = await a2aClient(p, a2a.token);
    const task = await client.sendMessage(ask('propose_update', { claims: [LOCKED] }));
    assert.ok(isTask(task));
    assert.equal(task.status?.state, TaskState.TASK_STATE_FAILED);
    assert.equal(errorOf(task)?.error, 'invalid_request');
    assert.equal((await readKey(p, p.subjectToken, 'fragrance.freshness_preference'))?.value, 0.31);
  });
});
