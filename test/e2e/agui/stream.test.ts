import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EventType, HttpAgent } from '@ag-ui/client';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import type { ChangeFeed, ChangeSubscription } from '../../../src/store/change-feed.ts';
import type { InProcessChangeFeed } from '../../../src/store/in-process-change-feed.ts';
import { mountAgui } from '../../../src/surfaces/agui/app.ts';
import { assertConverged, eventually, follow, parseSse } from '../../support/agui-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// The life of a following run: keepalive comments while nothing changes, an expiry seen by the
// stream itself (nobody reads the grant), the subscription closed when the client leaves, and
// RUN_FINISHED when the provider stops following. The surface is mounted alone on a listener of
// its own with a short keepalive interval, over the test provider's deps; the clock is set.

describe('a following review run', () => {
  let p: TestProvider;
  let url = '';
  let server: Server;
  let now = Date.now();
  /** The change subscriptions open right now (the feed's subscribe, watched). */
  const open = new Set<ChangeSubscription>();
  const logged: string[] = [];

  before(async () => {
    p = await startTestProvider({ clock: () => new Date(now) });
    watchSubscriptions(p.deps.changes, open);
    const app = new Hono();
    mountAgui(app, p.deps, {
      bodyLimitBytes: 1 << 20,
      keepaliveMs: 25,
      log: (m) => logged.push(m),
      maxRunsPerPerson: 3,
    });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        url = `http://127.0.0.1:${info.port}/v1/agui/review`;
        resolve();
      }) as Server;
    });
  });
  after(async () => {
    await new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });
    await p.close();
  });

  function agent(): HttpAgent {
    return new HttpAgent({ url, headers: { Authorization: `Bearer ${p.subjectToken}` } });
  }

  it('writes a comment line every interval while nothing changes, and a client leaving closes its subscription', async () => {
    const abort = new AbortController();
    const r = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.subjectToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 't', runId: 'r', messages: [] }),
      signal: abort.signal,
    });
    assert.equal(r.status, 200);
    await eventually(() => open.size === 1, 'the run to subscribe');
    const reader = r.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = Date.now() + 200;
    while (Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const comments = text.split('\n\n').filter((b) => b.startsWith(':'));
    assert.ok(comments.length >= 3, `keepalive comments: ${comments.length}`);
    const events = parseSse(text);
    assert.deepEqual(
      events.map((e) => e.type),
      [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT],
    );
    abort.abort();
    await eventually(() => open.size === 0, 'the subscription to close once the client left');
  });

  it('sees a grant expire by itself: nobody reads the grant, the stream announces it', async () => {
    const g = await p.grant({ expires_at: new Date(now + 60_000).toISOString() });
    const f = follow(agent());
    try {
      await assertConverged(p, f);
      const held = () => f.agent.state as InboxState;
      assert.ok(held().active_grants.some((x) => x.grant_id === g.grant.grant_id));
      now += 120_000;
      // No fresh snapshot before this point: reading the grants would announce the expiry itself.
      await eventually(
        () => !held().active_grants.some((x) => x.grant_id === g.grant.grant_id),
        'the expired grant to leave the state',
      );
      const [event] = await p.store.listChanges({ after: held().seq - 1, limit: 1 });
      assert.equal(event?.kind, 'grant_expired');
      await assertConverged(p, f);
    } finally {
      await f.stop();
    }
    await eventually(() => open.size === 0, 'the subscription to close');
  });

  it('a failure mid-stream is a RUN_ERROR with a generic message, logged, and the subscription closes', async () => {
    const f = follow(agent());
    await assertConverged(p, f);
    const store = p.deps.store as { listProposals: (...args: unknown[]) => Promise<unknown> };
    const listProposals = store.listProposals;
    store.listProposals = async () => {
      throw new Error('disk on fire at /var/secret/path');
    };
    try {
      await p.grant();
      await eventually(() => f.record.events.at(-1)?.type === EventType.RUN_ERROR, 'RUN_ERROR');
    } finally {
      store.listProposals = listProposals;
      await f.stop();
    }
    const error = f.record.events.at(-1) as { code?: string; message?: string };
    assert.equal(error.code, 'server_error');
    assert.match(error.message ?? '', /failed to follow your profile; it has been logged/);
    assert.ok(
      !JSON.stringify(f.record.events).includes('disk on fire'),
      'the internal message stays in the log',
    );
    assert.match(logged.join('\n'), /review stream failed: Error: disk on fire/);
    await eventually(() => open.size === 0, 'the subscription to close');
  });

  it('a person holds at most so many following runs: the next is 429 in words, one-shot runs still go, a closed run frees its place', async () => {
    const runs = [follow(agent()), follow(agent()), follow(agent())];
    for (const f of runs) {
      await eventually(() => f.record.events.some((e) => e.type === EventType.STATE_SNAPSHOT), 'a snapshot');
    }
    const post = (forwardedProps: Record<string, unknown>) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${p.subjectToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ threadId: 't', runId: 'r', messages: [], forwardedProps }),
      });
    const refused = await post({});
    assert.equal(refused.status, 429);
    const body = (await refused.json()) as { error: string; error_description: string };
    assert.equal(body.error, 'rate_limited');
    assert.match(body.error_description, /already have 3 live views of your profile open/);
    const once = await post({ follow: false });
    assert.equal(once.status, 200);
    await once.text();
    await runs[0]!.stop();
    await eventually(() => open.size === 2, 'the closed run to let go of its subscription');
    const again = follow(agent());
    await eventually(() => again.record.events.some((e) => e.type === EventType.STATE_SNAPSHOT), 'a new run');
    assert.equal(again.record.failure, undefined);
    for (const f of [...runs.slice(1), again]) await f.stop();
    await eventually(() => open.size === 0, 'every subscription closed');
  });

  it('ends with RUN_FINISHED (success) when the provider stops following', async () => {
    const f = follow(agent());
    await assertConverged(p, f);
    (p.deps.changes as InProcessChangeFeed).close();
    await eventually(() => f.record.events.at(-1)?.type === EventType.RUN_FINISHED, 'RUN_FINISHED');
    assert.deepEqual((f.record.events.at(-1) as { outcome?: unknown }).outcome, { type: 'success' });
    assert.equal(f.record.failure, undefined);
    await f.stop();
    assert.equal(open.size, 0);
  });
});

/** Keeps `open` in step with the feed's live subscriptions. */
function watchSubscriptions(feed: ChangeFeed, open: Set<ChangeSubscription>): void {
  const subscribe = feed.subscribe.bind(feed);
  (feed as { subscribe: ChangeFeed['subscribe'] }).subscribe = (filter, options) => {
    const s = subscribe(filter, options);
    open.add(s);
    const close = s.close.bind(s);
    s.close = () => {
      open.delete(s);
      close();
    };
    return s;
  };
}
