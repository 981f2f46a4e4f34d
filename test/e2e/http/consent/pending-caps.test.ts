import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BaseEvent, EventType } from '@ag-ui/client';
import { registerClient } from '../../../../src/operations/accounts/clients.ts';
import { PENDING_PER_APP, PENDING_PER_PERSON } from '../../../../src/operations/consent/pending-caps.ts';
import { parseSse } from '../../../support/agui-client.ts';
import { testClock } from '../../../support/clock.ts';
import { pkce, requestBody } from '../../../support/consent-flow.ts';
import { assertError } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// Issue 22 item 10: consent-request spam. Anyone may ask (POST /v1/consent/request takes no
// token), so what one person can be asked at once is capped: PENDING_PER_APP live requests per app
// and PENDING_PER_PERSON in all; past a cap the answer is 429 with Retry-After and words, the same
// for a subject that exists and one that does not. A request lives 15 minutes: after that it is
// neither listed (interrupts, /app) nor counted.

const MINUTE = 60_000;

describe('pending consent requests are capped and expire (issue 22 item 10)', () => {
  let p: TestProvider;
  const clock = testClock();
  before(async () => {
    p = await startTestProvider({ clock: clock.clock });
    // More apps than the person cap can take at PENDING_PER_APP each.
    for (let i = 0; i < Math.ceil(PENDING_PER_PERSON / PENDING_PER_APP) + 1; i++) {
      const r = await registerClient(p.deps, { client_id: `app-${i}`, name: `App ${i}` });
      assert.ok(r.ok);
    }
  });
  after(() => p.close());

  function ask(over: Record<string, unknown> = {}) {
    const body: Record<string, unknown> = requestBody(p, pkce().challenge, over);
    if (over['client_id'] !== undefined && over['client_id'] !== 'fragrance-demo')
      delete body['redirect_uri'];
    return api(p.url, '/v1/consent/request', { body });
  }

  /** The consent interrupts a one-shot review run of the person ends with. */
  async function interrupts(): Promise<unknown[]> {
    const r = await api(p.url, '/v1/agui/review', {
      token: p.subjectToken,
      body: { threadId: `t-${Math.random()}`, runId: 'r', messages: [], forwardedProps: { follow: false } },
    });
    assert.equal(r.status, 200, r.text);
    const events: BaseEvent[] = parseSse(r.text);
    // biome-ignore lint/suspicious/noExplicitAny: the outcome is read member by member
    const finished: any = events.find((e) => e.type === EventType.RUN_FINISHED);
    assert.ok(finished, 'the run finished');
    return finished.outcome?.type === 'interrupt' ? finished.outcome.interrupts : [];
  }

  async function pendingOf(subjectId: string): Promise<number> {
    return (await p.store.listPendingGrantRequestsBySubject(subjectId, clock.clock().toISOString())).length;
  }

  it('500 requests for one person in a burst: at most the cap stay pending, the rest 429 with Retry-After and words', async () => {
    const answers = await Promise.all(Array.from({ length: 500 }, () => ask()));
    const created = answers.filter((r) => r.status === 201);
    assert.equal(created.length, PENDING_PER_APP, 'exactly the cap was accepted');
    for (const r of answers.filter((a) => a.status !== 201)) {
      assertError(r, 429, 'rate_limited');
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry > 0 && retry <= 15 * 60, `Retry-After ${retry}`);
      assert.match(r.json.error_description, /already has 3 requests waiting for an answer from this person/);
    }
    assert.equal(await pendingOf(p.subjectId), PENDING_PER_APP);
    assert.equal((await interrupts()).length, PENDING_PER_APP, 'a run ends with the cap of interrupts');
  });

  it('past the per-person cap, other apps are refused too', async () => {
    for (let i = 0; (await pendingOf(p.subjectId)) < PENDING_PER_PERSON; i++) {
      assert.equal((await ask({ client_id: `app-${Math.floor(i / PENDING_PER_APP)}` })).status, 201);
    }
    const last = `app-${Math.ceil(PENDING_PER_PERSON / PENDING_PER_APP)}`;
    const refused = await ask({ client_id: last });
    assertError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.match(refused.json.error_description, /too many apps are already waiting/);
    assert.equal(await pendingOf(p.subjectId), PENDING_PER_PERSON);
    assert.equal((await interrupts()).length, PENDING_PER_PERSON);
  });

  it('a subject that does not exist gets the same answers as one that does', async () => {
    const nobody = 'did:example:nobody-at-all';
    const known = await startTestProvider({ clock: clock.clock });
    try {
      const seq = async (base: string, subject: string) => {
        const out: string[] = [];
        for (let i = 0; i < PENDING_PER_APP + 2; i++) {
          const r = await api(base, '/v1/consent/request', {
            body: { ...requestBody(p, pkce().challenge), subject_id: subject },
          });
          out.push(
            `${r.status} ${r.json.error ?? ''} ${r.json.error_description ?? ''} ${r.headers.get('retry-after')}`,
          );
        }
        return out;
      };
      assert.deepEqual(await seq(p.url, nobody), await seq(known.url, known.subjectId));
    } finally {
      await known.close();
    }
  });

  it('a request older than 15 minutes is neither listed nor counted', async () => {
    assert.equal((await interrupts()).length, PENDING_PER_PERSON);
    clock.advance(15 * MINUTE + 1000);
    assert.equal(await pendingOf(p.subjectId), 0);
    assert.deepEqual(await interrupts(), [], 'no run is interrupted by an expired request');
    const again = await ask();
    assert.equal(again.status, 201, again.text);
    assert.equal((await interrupts()).length, 1);
  });
});
