import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventType } from '@ag-ui/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import { AUDIT_APPENDED } from '../../../src/surfaces/agui/audit-notices.ts';
import {
  assertConverged,
  eventually,
  type Following,
  follow,
  reviewAgent,
} from '../../support/agui-client.ts';
import { approve, ask } from '../../support/consent-flow.ts';
import { decide, effective, travelGrant } from '../../support/cross-domain.ts';
import { connect, mcpGrant } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { confirm, propose, proposed } from '../../support/writeback.ts';

// One following review run, consumed by @ag-ui/client's HttpAgent, while every other surface
// changes the person's data: after each change the state the client holds (the snapshot with
// every STATE_DELTA applied by the client itself) is exactly what a fresh one-shot run shows.
// The provider's clock is set, so a grant expires without waiting.

// biome-ignore lint/suspicious/noExplicitAny: tool results are arbitrary JSON
type ToolResult = any;

describe('the AG-UI review stream follows changes made on every surface', () => {
  let p: TestProvider;
  let f: Following;
  let now = Date.now();
  const clients: Client[] = [];
  const state = () => f.agent.state as InboxState;
  const pendingIds = () =>
    state().pending_reviews.map((r) => (r.kind === 'writeback_proposal' ? r.proposal_id : r.review_id));
  const grantIds = () => state().active_grants.map((g) => g.grant_id);

  before(async () => {
    p = await startTestProvider({ clock: () => new Date(now) });
    f = follow(reviewAgent(p));
    await assertConverged(p, f);
  });
  after(async () => {
    await f.stop();
    for (const c of clients) await c.close();
    await p.close();
  });

  let mcpProposal = '';
  let httpProposal = '';

  it('a proposal over MCP (the SDK client) appears among pending_reviews', async () => {
    const { grant, token } = await mcpGrant(p, {
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
    });
    await assertConverged(p, f);
    assert.ok(grantIds().includes(grant.grant_id), 'the new grant is active in the state');
    const c = await connect(p, token);
    clients.push(c);
    const r: ToolResult = await c.callTool({
      name: 'ppx_propose_updates',
      arguments: { claims: [proposed('fragrance', 'freshness_preference', 0.9)] },
    });
    assert.equal(r.isError, undefined, r.content[0]?.text);
    mcpProposal = r.structuredContent.data.proposals[0].proposal_id;
    await assertConverged(p, f);
    assert.ok(pendingIds().includes(mcpProposal));
  });

  it('a proposal over HTTP under a grant token appears too', async () => {
    const g = await p.grant({
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
    });
    const r = await propose(p, g.token, [proposed('core', 'novelty_tolerance', 0.2)]);
    assert.equal(r.status, 202, r.text);
    httpProposal = r.json.proposals[0].proposal_id;
    await assertConverged(p, f);
    assert.ok(pendingIds().includes(httpProposal));
  });

  it('confirming one and rejecting the other over HTTP: the claim is written, both leave pending_reviews', async () => {
    const r = await confirm(p, p.subjectToken, [
      { proposal_id: mcpProposal, action: 'confirm' },
      { proposal_id: httpProposal, action: 'reject' },
    ]);
    assert.equal(r.status, 200, r.text);
    const settled = await assertConverged(p, f);
    assert.deepEqual(pendingIds(), []);
    assert.ok(settled.claims.some((c) => c.namespace === 'fragrance' && c.key === 'freshness_preference'));
  });

  it('confirming a stored claim and deleting another', async () => {
    const [first, second] = state().claims;
    assert.ok(first && second);
    assert.equal(
      (await confirm(p, p.subjectToken, [{ claim_id: first.claim_id, action: 'confirm' }])).status,
      200,
    );
    const confirmed = await assertConverged(p, f);
    assert.ok(confirmed.claims.find((c) => c.claim_id === first.claim_id)?.lifecycle?.last_confirmed_at);
    const del = await api(p.url, `/v1/profile/claims/${encodeURIComponent(second.claim_id)}`, {
      method: 'DELETE',
      token: p.subjectToken,
    });
    assert.equal(del.status, 200, del.text);
    await assertConverged(p, f);
    assert.ok(!state().claims.some((c) => c.claim_id === second.claim_id));
  });

  /** Runs before the current one (a consent request interrupts a run; the next one resumes). */
  const earlier: Following[] = [];

  it('a consent request interrupts the run; approved over HTTP, the grant appears; revoking it over HTTP removes it', async () => {
    const pending = await ask(p);
    const last = () => f.record.events.at(-1) as { type: string; outcome?: ToolResult } | undefined;
    await eventually(
      () => last()?.type === EventType.RUN_FINISHED,
      'the consent request to interrupt the run',
    );
    const interrupt = last()?.outcome.interrupts[0];
    assert.equal(interrupt.metadata.grant_request_id, pending.id);
    await f.stop();
    earlier.push(f);
    const approved = await approve(p, pending.id);
    // Decided on another surface: the next run of the thread cancels the interrupt (nothing applied).
    f = follow(f.agent, {}, [{ interruptId: interrupt.id, status: 'cancelled' }]);
    assert.equal(approved.status, 200, approved.text);
    const grantId = approved.json.grant_id ?? approved.json.grant?.grant_id;
    assert.ok(grantId, approved.text);
    await assertConverged(p, f);
    assert.ok(grantIds().includes(grantId));
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grantId },
    });
    assert.equal(revoked.status, 200, revoked.text);
    await assertConverged(p, f);
    assert.ok(!grantIds().includes(grantId));
  });

  it('a cross-domain review appears when a read asks for it, and leaves when decided', async () => {
    const travel = await travelGrant(p, 'allow_with_review');
    await effective(p, travel.token);
    await assertConverged(p, f);
    const review = state().pending_reviews.find((r) => r.kind === 'cross_domain_review');
    assert.ok(review?.kind === 'cross_domain_review', JSON.stringify(state().pending_reviews));
    assert.equal((await decide(p, 'approve', { review_id: review.review_id })).status, 200);
    await assertConverged(p, f);
    assert.ok(!pendingIds().includes(review.review_id));
  });

  it('a grant past its expiry leaves active_grants once a request finds it expired', async () => {
    const g = await p.grant({ expires_at: new Date(now + 60_000).toISOString() });
    await assertConverged(p, f);
    assert.ok(grantIds().includes(g.grant.grant_id));
    now += 120_000;
    const r = await api(p.url, '/v1/profile/summary', { token: g.token });
    assert.equal(r.status, 401, r.text);
    await assertConverged(p, f);
    assert.ok(!grantIds().includes(g.grant.grant_id));
  });

  it('the runs so far obey AG-UI: RUN_STARTED first, one snapshot, then deltas only; the interrupted one ends CUSTOM, RUN_FINISHED', () => {
    const [first] = earlier;
    // Besides: the notices that the person's log grew (CUSTOM ppx.audit_appended, docs/ag-ui.md).
    const typesOf = (events: readonly { type: string; name?: string }[]) =>
      events.filter((e) => !(e.type === EventType.CUSTOM && e.name === AUDIT_APPENDED)).map((e) => e.type);
    const types = typesOf(first!.record.events);
    assert.equal(types[0], EventType.RUN_STARTED);
    assert.equal(types[1], EventType.STATE_SNAPSHOT);
    assert.ok(types.length > 10, `events: ${types.join(', ')}`);
    assert.deepEqual(types.slice(-2), [EventType.CUSTOM, EventType.RUN_FINISHED]);
    assert.deepEqual(new Set(types.slice(2, -2)), new Set([EventType.STATE_DELTA]));
    const now = typesOf(f.record.events);
    assert.deepEqual(now.slice(0, 2), [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT]);
    assert.deepEqual(new Set(now.slice(2)), new Set([EventType.STATE_DELTA]));
    for (const run of [first!, f]) assert.equal(run.record.failure, undefined);
  });
});
