import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BaseEvent, EventType, type HttpAgent, type Message } from '@ag-ui/client';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import {
  assertConverged,
  eventually,
  follow,
  oneShot,
  parseSse,
  type RunRecord,
  recorder,
  reviewAgent,
} from '../../support/agui-client.ts';
import { ask } from '../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { proposalsOf, propose, proposed, storedClaims } from '../../support/writeback.ts';

// The person's actions in their review run (WIRE-NOTES §7: TOOL_CALL_START/ARGS/END/RESULT for
// each approve, reject, revoke, confirm and edit; TEXT_MESSAGE_* for explanations), driven with
// @ag-ui/client's HttpAgent: each action runs the catalog operation of its name for the person,
// the state that follows shows what it did, and bad actions apply nothing.

// biome-ignore lint/suspicious/noExplicitAny: events and results are checked member by member
type Any = any;

describe('AG-UI: the person acts through their review run', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  async function act(
    actions: unknown[],
    extra: Record<string, unknown> = {},
    agent: HttpAgent = reviewAgent(p),
  ): Promise<{ record: RunRecord; agent: HttpAgent }> {
    const record: RunRecord = { events: [] };
    await agent
      .runAgent({ forwardedProps: { follow: false, actions, ...extra } }, recorder(record))
      .catch((e: Error) => {
        record.failure ??= e;
      });
    return { record, agent };
  }
  const types = (r: RunRecord) => r.events.map((e) => e.type);
  const results = (r: RunRecord): Any[] =>
    r.events.filter((e) => e.type === EventType.TOOL_CALL_RESULT).map((e: Any) => JSON.parse(e.content));

  /** A proposal an app queued for the person (review_required), and its grant. */
  async function queuedProposal(key = 'novelty_tolerance', value: unknown = 0.2) {
    const g = await p.grant({ allowed_operations: ['read', 'propose_update'] });
    const r = await propose(p, g.token, [proposed('core', key, value)]);
    assert.equal(r.status, 202, r.text);
    const pending = (await proposalsOf(p, 'pending')).at(-1);
    assert.ok(pending);
    return { grant: g, proposalId: pending.proposal_id };
  }

  // First: later tests change the demo profile's claims.
  it('"who can see it" follows the policy: a grant whose domains a claim does not apply to is not named', async () => {
    const dating = await p.grant({
      client_id: 'travel-demo',
      purposes: ['matching'],
      allowed_domains: ['dating'],
      allowed_namespaces: ['core'],
    });
    const state = (await oneShot(p)).state;
    // A core claim that applies to other domains only (cross-domain for dating: denied), and one
    // that applies to any domain.
    const core = state.claims.filter((c) => c.namespace === 'core');
    const novelty = core.find(
      (c) => c.applicability?.domains && !c.applicability.domains.includes('dating'),
    )!;
    const ambiguity = core.find((c) => c.applicability?.domains === undefined)!;
    assert.ok(novelty && ambiguity, 'the demo profile has both kinds');
    const agent = reviewAgent(p);
    await agent.runAgent({
      forwardedProps: {
        follow: false,
        explain: [{ claim_id: novelty.claim_id }, { claim_id: ambiguity.claim_id }],
      },
    });
    const [aboutNovelty, aboutAmbiguity] = agent.messages
      .filter((m: Any) => m.role === 'assistant' && typeof m.content === 'string')
      .map((m: Any) => m.content as string);
    // Apps are named by their names, never by their client ids (issue 22 item 15).
    assert.ok(!aboutNovelty!.includes('Travel Demo Agent'), aboutNovelty);
    assert.ok(aboutAmbiguity!.includes('Travel Demo Agent'), aboutAmbiguity);
    assert.ok(!aboutAmbiguity!.includes('travel-demo'), aboutAmbiguity);
    await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: dating.grant.grant_id },
    });
  });

  it('confirm: TOOL_CALL_START/ARGS/END/RESULT, then the state the action left, which a fresh snapshot shows too', async () => {
    const { proposalId } = await queuedProposal();
    const args = { decisions: [{ proposal_id: proposalId, action: 'confirm' }] };
    const { record, agent } = await act([{ name: 'confirm_updates', arguments: args }]);
    assert.equal(record.failure, undefined, record.failure?.message);
    assert.deepEqual(types(record), [
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.STATE_DELTA,
      EventType.RUN_FINISHED,
    ]);
    const [start, argsEvent, end, result] = record.events.slice(2, 6) as Any[];
    assert.equal(start.toolCallName, 'confirm_updates');
    assert.equal(argsEvent.toolCallId, start.toolCallId);
    assert.equal(end.toolCallId, start.toolCallId);
    assert.equal(result.toolCallId, start.toolCallId);
    assert.deepEqual(JSON.parse(argsEvent.delta), args);
    const outcome = JSON.parse(result.content);
    assert.equal(outcome.ok, true, result.content);
    assert.equal((await proposalsOf(p, 'confirmed')).at(-1)?.proposal_id, proposalId);

    const held = agent.state as InboxState;
    assert.ok(
      !held.pending_reviews.some((r) => r.kind === 'writeback_proposal' && r.proposal_id === proposalId),
    );
    assert.deepEqual(held, (await oneShot(p)).state, 'the patched state is exactly a fresh snapshot');
    // The client keeps the call in its messages: an assistant tool call and the tool's answer.
    const messages: Message[] = agent.messages;
    const call = messages.find(
      (m: Any) => m.role === 'assistant' && m.toolCalls?.[0]?.id === start.toolCallId,
    );
    assert.ok(call, 'the tool call is in the thread');
    assert.ok(messages.some((m: Any) => m.role === 'tool' && m.toolCallId === start.toolCallId));
  });

  it('edit and reject proposals, confirm a stored claim: the same decisions as POST /v1/profile/confirm-updates', async () => {
    const edited = await queuedProposal('novelty_tolerance', 0.3);
    const rejected = await queuedProposal('novelty_tolerance', 0.9);
    const claim = (await storedClaims(p))[0]!;
    const { record } = await act([
      {
        name: 'confirm_updates',
        arguments: {
          decisions: [
            {
              proposal_id: edited.proposalId,
              action: 'edit',
              claim: proposed('core', 'novelty_tolerance', 0.35, { source: { kind: 'user_stated' } }),
            },
            { proposal_id: rejected.proposalId, action: 'reject' },
            { claim_id: claim.claim_id, action: 'confirm' },
          ],
        },
      },
    ]);
    assert.equal(record.failure, undefined, record.failure?.message);
    const [outcome] = results(record);
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    const statuses = new Map((await proposalsOf(p)).map((x) => [x.proposal_id, x.status]));
    assert.equal(statuses.get(edited.proposalId), 'confirmed');
    assert.equal(statuses.get(rejected.proposalId), 'rejected');
    const after = (await storedClaims(p)).find((c) => c.claim_id === claim.claim_id);
    assert.ok(after?.lifecycle?.last_confirmed_at, 'the stored claim is confirmed');
  });

  it('revoke: the grant leaves the state, and the grantee’s very next read fails', async () => {
    const g = await p.grant();
    const before = await api(p.url, '/v1/profile/query', { token: g.token, body: {} });
    assert.equal(before.status, 200, before.text);
    const { record, agent } = await act([
      { name: 'revoke_consent_grant', arguments: { grant_id: g.grant.grant_id } },
    ]);
    assert.equal(record.failure, undefined, record.failure?.message);
    assert.equal(results(record)[0].ok, true);
    assert.equal(results(record)[0].value.grant.status, 'revoked');
    assert.ok(!(agent.state as InboxState).active_grants.some((x) => x.grant_id === g.grant.grant_id));
    const afterRead = await api(p.url, '/v1/profile/query', { token: g.token, body: {} });
    assert.ok([401, 403].includes(afterRead.status), afterRead.text);
  });

  it('reads as tools: export, the audit log, the diff, each result the operation’s own output', async () => {
    const { record } = await act([
      { name: 'export_profile', arguments: {} },
      { name: 'list_audit_events', arguments: { order: 'newest', limit: 5 } },
      { name: 'diff_profile', arguments: { from: '2020-01-01T00:00:00Z' } },
    ]);
    assert.equal(record.failure, undefined, record.failure?.message);
    const [exported, audit, diff] = results(record);
    assert.equal(exported.ok, true, JSON.stringify(exported));
    assert.ok(Array.isArray(exported.value.claims) && exported.value.claims.length > 0);
    assert.equal(audit.ok, true, JSON.stringify(audit));
    assert.ok(Array.isArray(audit.value.events) && audit.value.events.length <= 5);
    assert.equal(diff.ok, true, JSON.stringify(diff));
    // Reads change nothing: no state patch after them.
    assert.ok(!types(record).includes(EventType.STATE_DELTA));
  });

  it('an operation that refuses is that call’s result, in words; the run and the other calls go on', async () => {
    const g = await p.grant();
    const { record } = await act([
      { name: 'revoke_consent_grant', arguments: { grant_id: 'ppx:grant:no-such-grant' } },
      { name: 'revoke_consent_grant', arguments: { grant_id: g.grant.grant_id } },
    ]);
    assert.equal(record.failure, undefined, record.failure?.message);
    const [missing, done] = results(record);
    assert.equal(missing.ok, false);
    assert.equal(missing.error, 'not_found');
    assert.equal(typeof missing.error_description, 'string');
    assert.equal(done.ok, true);
    assert.equal((await p.store.getGrant(g.grant.grant_id))?.status, 'revoked');
    assert.deepEqual(record.events.at(-1)?.type, EventType.RUN_FINISHED);
  });

  it('bad actions are RUN_ERROR naming what is wrong, with nothing applied, not even the good ones', async () => {
    const g = await p.grant();
    const good = { name: 'revoke_consent_grant', arguments: { grant_id: g.grant.grant_id } };
    const cases: [unknown, RegExp][] = [
      [[good, { name: 'drop_tables', arguments: {} }], /no action "drop_tables"/],
      [
        [good, { name: 'revoke_consent_grant', arguments: { grant_id: 7 } }],
        /action 2 \(revoke_consent_grant\)/,
      ],
      [[good, { name: 'get_effective_profile', arguments: {} }], /no action "get_effective_profile"/],
      [[good, { name: 'confirm_updates', arguments: { decisions: [] } }], /decisions/],
      [Array.from({ length: 21 }, () => good), /at most 20 actions/],
      [[{ arguments: {} }], /name/],
      ['revoke', /forwardedProps\.actions/],
    ];
    for (const [actions, message] of cases) {
      const { record } = await act(actions as unknown[]);
      const what = JSON.stringify(actions).slice(0, 120);
      const error: Any = record.events.find((e) => e.type === EventType.RUN_ERROR);
      assert.ok(error, `RUN_ERROR for ${what}`);
      assert.equal(error.code, 'invalid_request', what);
      assert.match(error.message, message, what);
      assert.ok(!types(record).includes(EventType.TOOL_CALL_START), what);
    }
    assert.equal((await p.store.getGrant(g.grant.grant_id))?.status, 'active', 'nothing applied');
    // A client that does not read events gets the HTTP error instead.
    const r = await api(p.url, '/v1/agui/review', {
      token: p.subjectToken,
      body: { threadId: 't', runId: 'r', messages: [], forwardedProps: { actions: [{ name: 'nope' }] } },
    });
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.error_description, /no action "nope"/);
  });

  it('a malformed RunAgentInput, to a client reading events, is RUN_ERROR (alone when it has no run ids)', async () => {
    const send = (body: unknown) =>
      fetch(`${p.url}/v1/agui/review`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${p.subjectToken}`,
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
        },
        body: JSON.stringify(body),
      });
    const noIds = await send({ messages: 'hello' });
    assert.equal(noIds.status, 200);
    const alone = parseSse(await noIds.text());
    assert.deepEqual(
      alone.map((e) => e.type),
      [EventType.RUN_ERROR],
    );
    assert.match((alone[0] as Any).message, /RunAgentInput/);
    const withIds = await send({ threadId: 't', runId: 'r', messages: [], forwardedProps: { since: -1 } });
    const events: BaseEvent[] = parseSse(await withIds.text());
    assert.deepEqual(
      events.map((e) => e.type),
      [EventType.RUN_STARTED, EventType.RUN_ERROR],
    );
  });

  it('a grant token cannot act: 403, nothing applied', async () => {
    const g = await p.grant({ allowed_operations: ['read', 'confirm_update'] });
    const r = await api(p.url, '/v1/agui/review', {
      token: g.token,
      body: {
        threadId: 't',
        runId: 'r',
        messages: [],
        forwardedProps: {
          actions: [{ name: 'revoke_consent_grant', arguments: { grant_id: g.grant.grant_id } }],
        },
      },
    });
    assert.equal(r.status, 403, r.text);
    assert.equal((await p.store.getGrant(g.grant.grant_id))?.status, 'active');
  });

  it('in a following run: the action, its state, then later changes, converging with a fresh snapshot', async () => {
    const agent = reviewAgent(p);
    const g = await p.grant();
    const f = follow(agent, {
      actions: [{ name: 'revoke_consent_grant', arguments: { grant_id: g.grant.grant_id } }],
    });
    await eventually(
      () => f.record.events.some((e) => e.type === EventType.TOOL_CALL_RESULT),
      'the tool result',
    );
    await assertConverged(p, f);
    const marker = await p.grant();
    await eventually(
      () => (agent.state as InboxState).active_grants.some((x) => x.grant_id === marker.grant.grant_id),
      'a later change',
    );
    await assertConverged(p, f);
    const seqs = f.record.events
      .filter((e) => e.type === EventType.STATE_DELTA)
      .flatMap((e: Any) => e.delta.filter((o: Any) => o.path === '/seq').map((o: Any) => o.value));
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      'the seq never goes back',
    );
    await f.stop();
  });

  it('explanations in words: TEXT_MESSAGE_START/CONTENT/END per thing asked about, never raw key names', async () => {
    const { proposalId } = await queuedProposal('novelty_tolerance', 0.25);
    const g = await p.grant();
    const claim = (await oneShot(p)).state.claims.find((c) => c.key.includes('_'))!;
    const agent = reviewAgent(p);
    const record: RunRecord = { events: [] };
    await agent.runAgent(
      {
        forwardedProps: {
          follow: false,
          explain: [
            { claim_id: claim.claim_id },
            { proposal_id: proposalId },
            { grant_id: g.grant.grant_id },
            { grant_id: 'ppx:grant:gone' },
          ],
        },
      },
      recorder(record),
    );
    assert.equal(record.failure, undefined, record.failure?.message);
    const starts = record.events.filter((e) => e.type === EventType.TEXT_MESSAGE_START);
    assert.equal(starts.length, 4);
    const texts = agent.messages
      .filter((m: Any) => m.role === 'assistant' && typeof m.content === 'string')
      .map((m: Any) => m.content as string);
    assert.equal(texts.length, 4);
    for (const text of texts) {
      assert.ok(text.length > 10, text);
      assert.ok(!/\{|\[0|SHOULD/.test(text), `plain words: ${text}`);
    }
    assert.ok(!texts[0]!.includes(claim.key), `no raw key name: ${texts[0]}`);
    assert.match(texts[0]!, /see it/);
    assert.match(texts[1]!, /suggested/);
    assert.match(texts[2]!, /can see your/);
    assert.match(texts[3]!, /ended|never given/);
  });

  it('a resume’s consent decision is reported as the tool call it made (approve_grant_request)', async () => {
    const pending = await ask(p);
    const agent = reviewAgent(p);
    const first: RunRecord = { events: [] };
    await agent.runAgent({ forwardedProps: { follow: false } }, recorder(first));
    const finished: Any = first.events.find((e) => e.type === EventType.RUN_FINISHED);
    assert.equal(finished.outcome.type, 'interrupt');
    const interrupt = finished.outcome.interrupts.find(
      (i: Any) => i.metadata.grant_request_id === pending.id,
    );
    const others = finished.outcome.interrupts.filter((i: Any) => i !== interrupt);
    const second: RunRecord = { events: [] };
    await agent.runAgent(
      {
        forwardedProps: { follow: false },
        resume: [
          { interruptId: interrupt.id, status: 'resolved', payload: { action: 'approve' } },
          ...others.map((i: Any) => ({ interruptId: i.id, status: 'cancelled' })),
        ],
      },
      recorder(second),
    );
    assert.equal(second.failure, undefined, second.failure?.message);
    const start: Any = second.events.find((e) => e.type === EventType.TOOL_CALL_START);
    assert.equal(start?.toolCallName, 'approve_grant_request');
    const result: Any = second.events.find((e) => e.type === EventType.TOOL_CALL_RESULT);
    const grantId = JSON.parse(result.content).value.grant_id;
    assert.equal((await p.store.getGrantRequest(pending.id))?.grant_id, grantId);
  });
});
