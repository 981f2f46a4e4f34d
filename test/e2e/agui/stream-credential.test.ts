import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventType, HttpAgent, type RunErrorEvent } from '@ag-ui/client';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { issueSubjectToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { eventually, type Following, follow, reviewAgent, reviewUrl } from '../../support/agui-client.ts';
import { testClock } from '../../support/clock.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { signInOverHttp } from '../../support/web-session.ts';
import { propose, proposed } from '../../support/writeback.ts';

// An open stream ends with its credential (issue 22, item 9): the person's web session after
// POST /signout, or a subject token once it has expired, no longer delivers the profile. Before
// each event the run checks again what it was opened with; once that is gone, the next change
// brings no STATE_DELTA but a RUN_ERROR saying so, and the stream ends.

const USER = { username: 'stream-user', password: 'stream-password-1' };

describe('an open review stream ends when its credential does', () => {
  let p: TestProvider;
  const clock = testClock();
  let writer = '';
  const runs: Following[] = [];
  before(async () => {
    p = await startTestProvider({ clock: clock.clock });
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    writer = (
      await p.grant({
        allowed_operations: ['read', 'query', 'propose_update'],
        writeback_policy: 'allow',
        expires_at: new Date(clock.now() + 365 * 86_400_000).toISOString(),
      })
    ).token;
  });
  after(async () => {
    for (const r of runs) await r.stop();
    await p.close();
  });

  let written = 0;
  /** A change the person's open runs would show: the grantee writes a new value. */
  const change = async () => {
    written += 1;
    const r = await propose(p, writer, [proposed('fragrance', 'freshness_preference', 0.1 + written / 1000)]);
    assert.equal(r.status, 200, r.text);
  };
  /** Waits for the run's first state, as the person's app does before anything changes. */
  const started = async (f: Following) => {
    runs.push(f);
    await eventually(
      () => f.record.events.some((e) => e.type === EventType.STATE_SNAPSHOT),
      'the first state',
    );
  };
  const assertEndedWithoutValues = async (f: Following, words: RegExp) => {
    const before = f.record.events.length;
    await change();
    await eventually(() => f.record.events.some((e) => e.type === EventType.RUN_ERROR), 'the RUN_ERROR');
    const after = f.record.events.slice(before).map((e) => e.type);
    assert.ok(!after.includes(EventType.STATE_DELTA), `no STATE_DELTA after the credential ended: ${after}`);
    assert.ok(!after.includes(EventType.STATE_SNAPSHOT), 'no STATE_SNAPSHOT either');
    const error = f.record.events.find((e) => e.type === EventType.RUN_ERROR) as RunErrorEvent;
    assert.equal(error.code, 'invalid_token');
    assert.match(error.message, words);
    assert.equal(f.record.events.at(-1)?.type, EventType.RUN_ERROR, 'nothing after the RUN_ERROR');
  };

  it('signing out ends a run on the session: the next change brings RUN_ERROR, no STATE_DELTA', async () => {
    const { session, csrf } = await signInOverHttp(p.url, USER.username, USER.password);
    const agent = new HttpAgent({
      url: reviewUrl(p),
      headers: {
        cookie: `ppx_session=${session}`,
        'x-csrf-token': csrf,
        origin: p.url,
        'sec-fetch-site': 'same-origin',
      },
    });
    const f = follow(agent);
    await started(f);
    await change();
    await eventually(
      () => f.record.events.some((e) => e.type === EventType.STATE_DELTA),
      'a delta while signed in',
    );
    const out = await fetch(`${p.url}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ppx_session=${session}` },
      body: new URLSearchParams({ csrf }),
    });
    assert.equal(out.status, 303);
    await assertEndedWithoutValues(f, /signed out/);
  });

  it('a subject token that has expired ends its run the same way', async () => {
    const { access_token, expires_in } = await issueSubjectToken(p.deps, p.subjectId, 600);
    const f = follow(reviewAgent(p, access_token));
    await started(f);
    await change();
    await eventually(
      () => f.record.events.some((e) => e.type === EventType.STATE_DELTA),
      'a delta before expiry',
    );
    clock.advance((expires_in + 1) * 1000);
    await assertEndedWithoutValues(f, /expired|no longer valid/);
  });

  it('a run on a token still valid goes on', async () => {
    const f = follow(reviewAgent(p, (await issueSubjectToken(p.deps, p.subjectId)).access_token));
    await started(f);
    const before = f.record.events.length;
    await change();
    await eventually(
      () => f.record.events.slice(before).some((e) => e.type === EventType.STATE_DELTA),
      'a delta',
    );
    assert.equal(f.record.failure, undefined);
  });
});
