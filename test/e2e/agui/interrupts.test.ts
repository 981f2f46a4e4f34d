import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BaseEvent, EventType, type HttpAgent } from '@ag-ui/client';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import {
  eventually,
  follow,
  parseSse,
  type RunRecord,
  recorder,
  reviewAgent,
} from '../../support/agui-client.ts';
import { approve, ask } from '../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Consent requests as interrupts (WIRE-NOTES §7): a pending request ends a run with the CUSTOM
// INTERRUPT event and RUN_FINISHED's interrupt outcome; a new run on the same thread answers it
// with `resume`, through the consent flow's own operations. Bad answers are RUN_ERROR, with
// nothing applied.

// biome-ignore lint/suspicious/noExplicitAny: events and outcomes are checked member by member
type Any = any;

describe('AG-UI consent requests as interrupts', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  async function run(agent: HttpAgent, extra: Record<string, unknown> = {}): Promise<RunRecord> {
    const record: RunRecord = { events: [] };
    await agent
      .runAgent({ forwardedProps: { follow: false }, ...extra }, recorder(record))
      .catch((e: Error) => {
        record.failure ??= e;
      });
    return record;
  }
  const finished = (r: RunRecord): Any => r.events.find((e) => e.type === EventType.RUN_FINISHED);
  const status = async (id: string) => (await p.store.getGrantRequest(id))?.status;
  const raw = async (body: Record<string, unknown>): Promise<BaseEvent[]> => {
    const r = await api(p.url, '/v1/agui/review', {
      token: p.subjectToken,
      body: { runId: 'r', messages: [], forwardedProps: { follow: false }, ...body },
    });
    assert.equal(r.status, 200, r.text);
    return parseSse(r.text);
  };
  const runError = (events: BaseEvent[]): Any => {
    assert.deepEqual(
      events.map((e) => e.type),
      [EventType.RUN_STARTED, EventType.RUN_ERROR],
    );
    return events[1];
  };

  /** A run interrupted by one fresh request; returns the agent (holding the interrupt) and it. */
  async function interrupted(over: Record<string, unknown> = {}) {
    const pending = await ask(p, over);
    const agent = reviewAgent(p);
    const r = await run(agent);
    assert.equal(r.failure, undefined, r.failure?.message);
    const outcome = finished(r).outcome;
    assert.equal(outcome.type, 'interrupt');
    assert.equal(outcome.interrupts.length, 1);
    return { agent, pending, interrupt: outcome.interrupts[0], record: r };
  }

  it('a pending consent request ends the run: CUSTOM INTERRUPT, then RUN_FINISHED with the interrupt outcome', async () => {
    const { agent, pending, interrupt, record } = await interrupted();
    assert.deepEqual(
      record.events.map((e) => e.type),
      [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.CUSTOM, EventType.RUN_FINISHED],
    );
    const custom: Any = record.events[2];
    assert.equal(custom.name, 'INTERRUPT');
    const stored = await p.store.getGrantRequest(pending.id);
    assert.deepEqual(custom.value, {
      kind: 'ppx.consent_request',
      grant_draft: stored?.draft,
      actions: ['approve', 'edit', 'reject'],
    });
    assert.equal(interrupt.reason, 'ppx.consent_request');
    assert.equal(typeof interrupt.message, 'string');
    assert.equal(interrupt.expiresAt, stored?.expires_at);
    assert.equal(interrupt.responseSchema.type, 'object');
    assert.deepEqual(interrupt.metadata.grant_draft, stored?.draft);
    assert.deepEqual(interrupt.metadata.actions, ['approve', 'edit', 'reject']);
    assert.deepEqual(
      agent.pendingInterrupts.map((i) => i.id),
      [interrupt.id],
    );
    // Leave nothing pending for the next test.
    assert.equal(
      (
        await run(agent, {
          resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { action: 'reject' } }],
        })
      ).failure,
      undefined,
    );
  });

  it('resumed with approve: the grant is materialized and the next state shows it', async () => {
    const { agent, pending, interrupt } = await interrupted();
    const r = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { action: 'approve' } }],
    });
    assert.equal(r.failure, undefined, r.failure?.message);
    assert.deepEqual(finished(r).outcome, { type: 'success' });
    assert.equal(await status(pending.id), 'approved');
    const grantId = (await p.store.getGrantRequest(pending.id))?.grant_id;
    assert.ok((agent.state as InboxState).active_grants.some((g) => g.grant_id === grantId));
  });

  it('resumed with edit: the grant is narrowed first, by the consent page rules', async () => {
    const { agent, pending, interrupt } = await interrupted();
    const r = await run(agent, {
      resume: [
        {
          interruptId: interrupt.id,
          status: 'resolved',
          payload: { action: 'edit', grant: { allowed_namespaces: ['core'] } },
        },
      ],
    });
    assert.equal(r.failure, undefined, r.failure?.message);
    const grant = await p.store.getGrant((await p.store.getGrantRequest(pending.id))!.grant_id!);
    assert.deepEqual(grant?.allowed_namespaces, ['core']);
  });

  it('resumed with reject: the request is declined, no grant', async () => {
    const { agent, pending, interrupt } = await interrupted();
    const before = (await run(reviewAgent(p))).failure;
    assert.equal(before, undefined);
    const r = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { action: 'reject' } }],
    });
    assert.equal(r.failure, undefined, r.failure?.message);
    assert.equal(await status(pending.id), 'rejected');
  });

  it('cancelled: nothing decided, and the thread is not interrupted by it again', async () => {
    const { agent, pending, interrupt } = await interrupted();
    const r = await run(agent, { resume: [{ interruptId: interrupt.id, status: 'cancelled' }] });
    assert.equal(r.failure, undefined, r.failure?.message);
    assert.deepEqual(finished(r).outcome, { type: 'success' });
    assert.equal(await status(pending.id), 'pending');
    assert.deepEqual(finished(await run(agent)).outcome, { type: 'success' });
    assert.equal((await reject(pending.id)).status, 200);
  });
  const reject = (id: string) =>
    api(p.url, '/v1/consent/reject', { token: p.subjectToken, body: { grant_request_id: id } });

  it('a following run is interrupted when a request arrives', async () => {
    const f = follow(reviewAgent(p));
    await eventually(() => f.record.events.some((e) => e.type === EventType.STATE_SNAPSHOT), 'the snapshot');
    const pending = await ask(p);
    await eventually(() => f.record.events.some((e) => e.type === EventType.RUN_FINISHED), 'the interrupt');
    await f.stop();
    assert.equal(f.record.failure, undefined, f.record.failure?.message);
    assert.equal(finished(f.record).outcome.interrupts[0].metadata.grant_request_id, pending.id);
    assert.equal((await reject(pending.id)).status, 200);
  });

  it('bad answers are RUN_ERROR with nothing applied: unknown id, decided request, a wider edit, a bad payload, one left unanswered', async () => {
    const a = await ask(p);
    const b = await ask(p);
    const first = parseSse(
      (
        await api(p.url, '/v1/agui/review', {
          token: p.subjectToken,
          body: { threadId: 'bad', runId: 'r0', messages: [], forwardedProps: { follow: false } },
        })
      ).text,
    );
    const ids = (first.at(-1) as Any).outcome.interrupts.map((i: Any) => i.id);
    assert.equal(ids.length, 2);
    const [ia, ib] = ids;
    const resolve = (id: string, payload: unknown = { action: 'approve' }) => ({
      interruptId: id,
      status: 'resolved',
      payload,
    });
    const cases: [unknown[], RegExp][] = [
      [[resolve(ia), resolve(ib), resolve('consent:nope')], /no open interrupt "consent:nope"/],
      [[resolve(ia)], /does not answer every open interrupt: .*unanswered/],
      [
        [resolve(ia), resolve(ib, { action: 'edit', grant: { allowed_namespaces: ['core', 'travel'] } })],
        /./,
      ],
      [[resolve(ia), resolve(ib, { action: 'maybe' })], /payload of interrupt/],
      [[], /does not answer every open interrupt/],
    ];
    for (const [resume, message] of cases) {
      const err = runError(await raw({ threadId: 'bad', resume }));
      assert.match(err.message, message, JSON.stringify(resume));
      assert.equal(await status(a.id), 'pending');
      assert.equal(await status(b.id), 'pending');
    }
    // Decided elsewhere meanwhile: resolving it is stale; nothing else applied either.
    assert.equal((await approve(p, b.id)).status, 200);
    const stale = runError(
      await raw({ threadId: 'bad', resume: [resolve(ia, { action: 'reject' }), resolve(ib)] }),
    );
    assert.match(stale.message, /already been decided/);
    assert.equal(await status(a.id), 'pending');
    // Cancelling the decided one is fine: it applies nothing.
    const done = await raw({
      threadId: 'bad',
      resume: [resolve(ia, { action: 'reject' }), { interruptId: ib, status: 'cancelled' }],
    });
    assert.equal((done.at(-1) as Any).outcome.type, 'success');
    assert.equal(await status(a.id), 'rejected');
  });
});
