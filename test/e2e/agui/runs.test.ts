import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventType } from '@ag-ui/client';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import { issuePackageToken, issueSubjectToken } from '../../../src/operations/tokens/issue-tokens.ts';
import {
  assertConverged,
  follow,
  oneShot,
  parseSse,
  reviewAgent,
  reviewUrl,
} from '../../support/agui-client.ts';
import { importSecondSubject, SECOND_RAW, SECOND_SUBJECT } from '../../support/derived-views.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { propose, proposed } from '../../support/writeback.ts';

// Review runs one at a time: the one-shot run, resuming from a seq, who may open a run, and
// what a malformed RunAgentInput gets. The raw SSE is checked against AG-UI's own event
// schema; HttpAgent checks the ordering rules (a run that breaks one fails).

describe('AG-UI review runs', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  /** `token: null` sends none (an explicit undefined would take the default). */
  function post(body: unknown, token: string | null = p.subjectToken, type = 'application/json') {
    return api(p.url, '/v1/agui/review', {
      ...(token !== null ? { token } : {}),
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': type },
    });
  }
  const input = (extra: Record<string, unknown> = {}) => ({
    threadId: 't1',
    runId: 'r1',
    messages: [],
    ...extra,
  });

  it('a one-shot run: RUN_STARTED, STATE_SNAPSHOT of the review state, RUN_FINISHED with success', async () => {
    const r = await post(input({ forwardedProps: { follow: false } }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const events = parseSse(r.text);
    assert.deepEqual(
      events.map((e) => e.type),
      [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.RUN_FINISHED],
    );
    assert.deepEqual(events[0], { ...events[0], threadId: 't1', runId: 'r1' });
    assert.deepEqual((events[2] as { outcome?: unknown }).outcome, { type: 'success' });
    const state = (events[1] as unknown as { snapshot: InboxState }).snapshot;
    assert.deepEqual(Object.keys(state).sort(), [
      'active_grants',
      'claims',
      'pending_reviews',
      'profile_id',
      'seq',
    ]);
    assert.equal(state.seq, await p.store.latestChangeSeq());
    const profile = await p.store.getProfileBySubject(p.subjectId);
    assert.equal(state.profile_id, profile?.profile_id);
    const stored = await p.store.listClaims(profile!.profile_id);
    assert.ok(state.claims.length > 0);
    assert.deepEqual(
      state.claims.map((c) => c.claim_id),
      stored.filter((c) => c.review?.user_visible !== false).map((c) => c.claim_id),
    );
    // HttpAgent agrees: the same state, and no ordering rule broken.
    assert.deepEqual((await oneShot(p)).state, state);
  });

  it('resuming from `since` gets what changed while disconnected as a delta, never a gap', async () => {
    const agent = reviewAgent(p);
    const first = follow(agent);
    await assertConverged(p, first);
    await first.stop();
    const heldSeq = (agent.state as InboxState).seq;

    const g = await p.grant({
      allowed_operations: ['read', 'propose_update'],
      writeback_policy: 'review_required',
    });
    const proposal = await propose(p, g.token, [proposed('fragrance', 'freshness_preference', 0.4)]);
    assert.equal(proposal.status, 202, proposal.text);

    const second = follow(agent, { since: heldSeq });
    const settled = await assertConverged(p, second);
    assert.ok(settled.active_grants.some((x) => x.grant_id === g.grant.grant_id));
    assert.ok(settled.pending_reviews.some((x) => x.kind === 'writeback_proposal'));
    assert.deepEqual(
      second.record.events.slice(0, 2).map((e) => e.type),
      [EventType.RUN_STARTED, EventType.STATE_DELTA],
      'no snapshot: the held state is patched',
    );
    await second.stop();
  });

  it('a one-shot resume with nothing new sends no state at all; a since with no held state gets a snapshot', async () => {
    const fresh = await oneShot(p);
    const same = await post(
      input({ state: fresh.state, forwardedProps: { follow: false, since: fresh.state.seq } }),
    );
    assert.deepEqual(
      parseSse(same.text).map((e) => e.type),
      [EventType.RUN_STARTED, EventType.RUN_FINISHED],
    );
    for (const body of [
      input({ forwardedProps: { follow: false, since: fresh.state.seq } }),
      input({ state: { ...fresh.state, seq: 1 }, forwardedProps: { follow: false, since: fresh.state.seq } }),
      input({ state: fresh.state, forwardedProps: { follow: false, since: fresh.state.seq + 1000 } }),
    ]) {
      const events = parseSse((await post(body)).text);
      assert.deepEqual(
        events.map((e) => e.type),
        [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.RUN_FINISHED],
      );
    }
  });

  it('only the subject: a grant token is 403, a package token and no token are 401, nothing streams', async () => {
    const g = await p.grant();
    const refused = await post(input(), g.token);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.error, 'access_denied');
    assert.match(refused.json.error_description, /only the subject/);
    const pkg = await issuePackageToken(
      p.deps,
      { packageId: 'pkg-1', grantIds: [g.grant.grant_id], clientId: 'fragrance-demo' },
      600,
    );
    const packaged = await post(input(), pkg.access_token);
    assert.equal(packaged.status, 401, packaged.text);
    assert.equal(packaged.json.error, 'invalid_token');
    const none = await post(input(), null);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer realm="ppx"/);
    const agent = reviewAgent(p, g.token);
    await assert.rejects(agent.runAgent({ forwardedProps: { follow: false } }), (e: { status?: number }) => {
      assert.equal(e.status, 403);
      return true;
    });
  });

  it("another subject's changes never reach a person's stream, and each sees only their own", async () => {
    await importSecondSubject(p);
    const otherToken = (await issueSubjectToken(p.deps, SECOND_SUBJECT)).access_token;
    const mine = follow(reviewAgent(p));
    try {
      await onlyMine(mine, otherToken);
    } finally {
      await mine.stop();
    }
  });

  async function onlyMine(mine: ReturnType<typeof follow>, otherToken: string) {
    const before = await assertConverged(p, mine);
    const deltasBefore = mine.record.events.length;

    const theirs = await p.grant({
      subject_id: SECOND_SUBJECT,
      allowed_operations: ['read', 'propose_update'],
    });
    const r = await propose(p, theirs.token, [proposed('fragrance', 'freshness_preference', 0.31)]);
    assert.equal(r.status, 202, r.text);
    const other = await oneShot(p, otherToken);
    assert.ok(other.state.active_grants.some((x) => x.grant_id === theirs.grant.grant_id));
    assert.equal(other.state.pending_reviews.length, 1);

    const marker = await p.grant();
    const after = await assertConverged(p, mine);
    assert.equal(
      mine.record.events.length,
      deltasBefore + 1,
      'one delta: the marker grant, nothing of theirs',
    );
    assert.deepEqual(after.pending_reviews, before.pending_reviews);
    assert.ok(after.active_grants.some((x) => x.grant_id === marker.grant.grant_id));
    const text = JSON.stringify(mine.record.events);
    assert.ok(!text.includes(theirs.grant.grant_id) && !text.includes(SECOND_SUBJECT), 'no trace of them');
    // Their distinctive values, except any the person's own profile happens to hold too.
    const own = JSON.stringify(after);
    for (const raw of SECOND_RAW.filter((v) => !own.includes(v))) {
      assert.ok(!text.includes(raw), `no value of theirs (${raw})`);
    }
  }

  it('malformed input is a 400 (or 415) naming what is wrong, before any stream; never a 500', async () => {
    const cases: [unknown, number, RegExp, string?][] = [
      [{ runId: 'r', messages: [] }, 400, /threadId/],
      [{ threadId: 't', runId: 'r', messages: 'hello' }, 400, /messages/],
      ['{"threadId":', 400, /not valid JSON/],
      [input(), 415, /Content-Type: application\/json/, 'text/plain'],
      [input({ forwardedProps: { since: -1 } }), 400, /forwardedProps\.since/],
      [input({ forwardedProps: { since: 'last' } }), 400, /forwardedProps\.since/],
      [input({ forwardedProps: { follow: 'no' } }), 400, /forwardedProps\.follow/],
      [input({ forwardedProps: null }), 400, /forwardedProps/],
      [[1, 2], 400, /RunAgentInput/],
    ];
    for (const [body, status, description, type] of cases) {
      const r = await post(body, p.subjectToken, type);
      const what = `${JSON.stringify(body)} -> ${r.status} ${r.text}`;
      assert.equal(r.status, status, what);
      assert.equal(r.json.error, status === 415 ? 'unsupported_media_type' : 'invalid_request', what);
      assert.match(r.json.error_description, description, what);
      assert.equal(r.headers.get('content-type'), 'application/json', what);
    }
    const get = await api(p.url, '/v1/agui/review', { token: p.subjectToken });
    assert.equal(get.status, 405, get.text);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  it('the stream is reachable where the discovery card says AG-UI is supported', async () => {
    const card = await api(p.url, '/.well-known/ppx-card.json');
    assert.equal(card.status, 200, card.text);
    assert.equal(card.json.ui.ag_ui_supported, true);
    assert.equal(reviewUrl(p), `${p.url}/v1/agui/review`);
  });
});
