import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { EventType, HttpAgent } from '@ag-ui/client';
import pg from 'pg';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { granted, refresh } from '../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';

// Two provider instances on one PostgreSQL database, as behind a load balancer (issue 14, item 2):
// one public base URL, each instance on its own port. What one instance commits, the other acts
// on at the next request: a revocation, a grant, a task; a refresh token rotates exactly once
// however its uses are spread; and a review stream on one instance sees a change made through
// the other (LISTEN/NOTIFY), without reload.

const DATABASE_URL = process.env['PPX_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

async function unreachable(): Promise<string | false> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return false;
  } catch (e) {
    return `PostgreSQL is not reachable at ${DATABASE_URL}: ${e instanceof Error ? e.message : String(e)}`;
  }
}
const reason = await unreachable();

describe('two instances on one PostgreSQL database', skipWhen(reason), () => {
  const schema = `two_${randomBytes(5).toString('hex')}`;
  const BASE = 'http://ppx.two-instances.test';
  let a: TestProvider;
  let b: TestProvider;
  before(async () => {
    const shared = { postgres: { url: DATABASE_URL, schema }, env: { PPX_BASE_URL: BASE } };
    a = await startTestProvider(shared);
    b = await startTestProvider(shared);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('a grant revoked through one instance fails the very next request on the other', async () => {
    const g = await a.grant();
    assert.equal((await api(a.url, '/v1/profile/effective', { token: g.token, body: {} })).status, 200);
    assert.equal((await api(b.url, '/v1/profile/effective', { token: g.token, body: {} })).status, 200);
    const revoked = await api(b.url, '/v1/consent/revoke', {
      token: b.subjectToken,
      body: { grant_id: g.grant.grant_id },
    });
    assert.equal(revoked.status, 200, revoked.text);
    const next = await api(a.url, '/v1/profile/effective', { token: g.token, body: {} });
    assert.equal(next.status, 401, next.text);
  });

  it('a refresh token used at once on both instances rotates exactly once', async () => {
    const t = await granted(a);
    assert.ok(t.refresh);
    const answers = await Promise.all([
      refresh(a, t.refresh),
      refresh(b, t.refresh),
      refresh(a, t.refresh),
      refresh(b, t.refresh),
    ]);
    const ok = answers.filter((r) => r.status === 200);
    assert.equal(ok.length, 1, answers.map((r) => `${r.status} ${r.text.slice(0, 80)}`).join('\n'));
  });

  it('a rate limit is counted across instances: the budget is one, wherever the requests land', async () => {
    const { PostgresRateCounter } = await import('../../../src/store/postgres/rate-counter.ts');
    assert.ok(
      a.store.sharedRateCounter instanceof PostgresRateCounter,
      'the PostgreSQL store shares its counter',
    );
    const limit = { name: `test_${randomBytes(3).toString('hex')}`, limit: 5, windowSeconds: 60 };
    const now = new Date();
    const decisions = [];
    for (let i = 0; i < 8; i++) {
      const counter = (i % 2 === 0 ? a : b).store.sharedRateCounter!;
      decisions.push(await counter.take(limit, 'client-1', now));
    }
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, true, true, true, true, false, false, false],
    );
    assert.equal(decisions[4]!.remaining, 0);
    // Another key has its own budget.
    assert.equal((await b.store.sharedRateCounter!.take(limit, 'client-2', now)).allowed, true);
  });

  it('an A2A task made on one instance is read on the other', async () => {
    const { grant } = await a.grant();
    const token = (await issueGrantToken(a.deps, grant, 600, `${BASE}/a2a`)).access_token;
    const call = (url: string, body: unknown) =>
      fetch(`${url}/a2a`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'A2A-Version': '1.0',
        },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ result?: Record<string, unknown> }>);
    const sent = await call(a.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'm-two',
          role: 'ROLE_USER',
          parts: [{ data: { method: 'get_effective_profile', params: {} }, mediaType: 'application/json' }],
        },
      },
    });
    const id = (sent.result?.['task'] as { id?: string } | undefined)?.id;
    assert.ok(id, JSON.stringify(sent).slice(0, 200));
    const got = await call(b.url, { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id } });
    // GetTask answers the task itself (SendMessage wraps it in `task`).
    assert.equal(got.result?.['id'], id, JSON.stringify(got).slice(0, 200));
    assert.equal((got.result?.['status'] as { state?: string } | undefined)?.state, 'TASK_STATE_COMPLETED');
  });

  it('a review stream on one instance sees a change made through the other, without reload', async () => {
    const agent = new HttpAgent({
      url: `${a.url}/v1/agui/review`,
      headers: { Authorization: `Bearer ${a.subjectToken}` },
    });
    const events: string[] = [];
    const run = agent
      .runAgent({ forwardedProps: {} }, { onEvent: ({ event }) => void events.push(event.type) })
      .catch(() => undefined);
    const until = (check: () => boolean) =>
      (async () => {
        const stop = Date.now() + 10_000;
        while (!check() && Date.now() < stop) await new Promise((r) => setTimeout(r, 10));
        return check();
      })();
    assert.ok(await until(() => events.includes(EventType.STATE_SNAPSHOT)), 'a snapshot');
    const made = await b.grant();
    const shows = () =>
      (agent.state as InboxState).active_grants?.some((g) => g.grant_id === made.grant.grant_id) ?? false;
    assert.ok(await until(shows), 'the grant made on the other instance reached the stream');
    assert.ok(events.includes(EventType.STATE_DELTA));
    agent.abortRun();
    await run;
  });
});
