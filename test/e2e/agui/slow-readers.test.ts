import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { STREAM_BUFFER_BYTES } from '../../../src/surfaces/shared/bounded-stream.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { liveBytes, mib, neverReading, sample } from '../../support/slow-readers.ts';
import { propose, proposed } from '../../support/writeback.ts';

// Slow readers (issue 22, item 8): one signed-in person opens 16 following runs (the most one
// person may hold) and never reads them, while 60 writes of a 200 KB claim go by. Before, every
// patch queued in the process for every run (162 MB → 1,062 MB). Now each run holds at most
// STREAM_BUFFER_BYTES unread (ppx_stream_buffered_bytes), a run that falls further behind is cut
// (ppx_streams_cut_total), and the process grows by less than the bound docs/ag-ui.md states.
// Counted in bytes, never timed.

const RUNS = 16;
const WRITES = 60;
const CLAIM_BYTES = 200 * 1024;
/** docs/ag-ui.md "Slow readers": what the process' live memory may grow by under this attack. */
const GROWTH_BOUND = 32 * 1024 * 1024;

describe('slow readers of the AG-UI review stream', () => {
  let p: TestProvider;
  const sockets: Socket[] = [];
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await p.close();
  });
  const scrape = async () => (await fetch(`${p.url}/metrics`)).text();

  it('16 runs that never read: each is cut once it falls behind, and memory stays within the stated bound', async (t) => {
    const { token } = await p.grant({
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'allow',
    });
    const write = async (n: number) => {
      const value = `${n}`.padEnd(CLAIM_BYTES, 'x');
      const r = await propose(p, token, [proposed('fragrance', 'note_aversions', [value])]);
      assert.equal(r.status, 200, r.text);
    };
    // The person's own list goes first, so that the grantee's writes apply (rather than queue).
    const del = await api(
      p.url,
      `/v1/profile/claims/${encodeURIComponent('ppx:claim:demo-frag-aversions')}`,
      {
        method: 'DELETE',
        token: p.subjectToken,
      },
    );
    assert.equal(del.status, 200, del.text);
    await write(0); // the claim exists before the runs start: every later write is a patch
    const before = liveBytes();
    for (let i = 0; i < RUNS; i++) {
      const body = JSON.stringify({
        threadId: `slow-${i}`,
        runId: `slow-run-${i}`,
        messages: [],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      });
      sockets.push(
        neverReading(
          p.url,
          '/v1/agui/review',
          {
            authorization: `Bearer ${p.subjectToken}`,
            'content-type': 'application/json',
            accept: 'text/event-stream',
          },
          body,
        ),
      );
    }
    let text = await scrape();
    const open = () => sample(text, 'ppx_open_streams', { surface: 'agui' });
    while (open() < RUNS) text = await scrape(); // the test's own timeout bounds the wait
    assert.equal(open(), RUNS, 'all 16 runs are open');

    let mostBuffered = 0;
    let mostLive = before;
    for (let n = 1; n <= WRITES; n++) {
      await write(n);
      text = await scrape();
      mostBuffered = Math.max(mostBuffered, sample(text, 'ppx_stream_buffered_bytes', { surface: 'agui' }));
      mostLive = Math.max(mostLive, liveBytes());
    }
    text = await scrape();
    const grew = mostLive - before;
    t.diagnostic(
      `most queued (over all runs) ${mib(mostBuffered)}; live memory grew by at most ${mib(grew)}`,
    );
    assert.equal(
      sample(text, 'ppx_streams_cut_total', { surface: 'agui' }),
      RUNS,
      'every run that fell behind was cut',
    );
    assert.equal(sample(text, 'ppx_open_streams', { surface: 'agui' }), 0, 'no run is left open');
    // What one run may hold: its bound, plus the one event that found it full.
    const perRun = STREAM_BUFFER_BYTES + 2 * CLAIM_BYTES;
    assert.ok(mostBuffered <= RUNS * perRun, `at most ${RUNS * perRun} bytes queued, was ${mostBuffered}`);
    assert.ok(
      grew <= GROWTH_BOUND,
      `the process' live memory grew by ${mib(grew)} (bound ${mib(GROWTH_BOUND)})`,
    );
  });
});
