import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { A2UI_EXTENSION } from '../../../src/surfaces/a2a/a2ui-parts.ts';
import { MAX_STREAMS_PER_GRANT } from '../../../src/surfaces/a2a/app.ts';
import { STREAM_BUFFER_BYTES } from '../../../src/surfaces/shared/bounded-stream.ts';
import { a2aGrant } from '../../support/a2a-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { liveBytes, mib, neverReading, sample } from '../../support/slow-readers.ts';

// Slow readers of A2A task streams (issue 22, item 8): an agent sends SendStreamingMessage with
// the A2UI extension, 40 times, on a profile holding a 2.4 MB claim, and never reads an answer.
// Before, each answer (megabytes, with A2UI) stayed in the process for as long as the agent kept
// its connection: memory grew by every answer. Now a grant holds at most MAX_STREAMS_PER_GRANT
// streams whose answers are not yet taken, each at most STREAM_BUFFER_BYTES behind (or one
// event); more are refused with 429 in words until one is read or closed. Counted, never timed.

const STREAMS = 40;
const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
const NOTES = 12;
const NOTE_BYTES = 200 * 1024;

describe('slow readers of A2A task streams', () => {
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
  const streamingCall = (n: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: n,
      method: 'SendStreamingMessage',
      params: {
        message: {
          messageId: `slow-${n}`,
          role: 'ROLE_USER',
          parts: [
            {
              data: { method: 'get_effective_profile', params: { context: {} } },
              mediaType: 'application/json',
            },
          ],
        },
      },
    });

  it('40 streams never read: at most MAX_STREAMS_PER_GRANT are held, the rest refused, and memory stays within the bound', async (t) => {
    // A claim the grant can read, of 12 notes of 200 KB each: an answer larger than what the
    // kernel takes off the process for a connection (a few MB), so what is unread stays here.
    const profile = await p.store.getProfileBySubject(p.subjectId);
    assert.ok(profile);
    const claim = (await p.store.listClaims(profile.profile_id)).find((c) => c.key === 'note_aversions');
    assert.ok(claim);
    const notes = Array.from({ length: NOTES }, (_, i) => `${i}`.padEnd(NOTE_BYTES, 'x'));
    await p.store.putClaims(profile.profile_id, [{ ...claim, value: notes }]);

    const { token } = await a2aGrant(p);
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'a2a-version': '1.0',
      'a2a-extensions': A2UI_EXTENSION,
    };
    // One answer read whole, for its size.
    const read = await fetch(`${p.url}/a2a`, { method: 'POST', headers, body: streamingCall(0) });
    assert.equal(read.status, 200);
    const answerBytes = Buffer.byteLength(await read.text());
    t.diagnostic(`one answer: ${mib(answerBytes)}`);

    const before = liveBytes();
    const answered = async () => sample(await scrape(), 'ppx_http_requests_total', { surface: 'a2a' });
    const base = await answered();
    for (let n = 1; n <= STREAMS; n++) sockets.push(neverReading(p.url, '/a2a', headers, streamingCall(n)));
    // Every call answered (polled; the test's timeout bounds the wait).
    while ((await answered()) < base + STREAMS) await pause();
    const text = await scrape();
    const grew = liveBytes() - before;
    const queued = sample(text, 'ppx_stream_buffered_bytes', { surface: 'a2a' });
    t.diagnostic(`queued ${mib(queued)}; live memory grew by ${mib(grew)}`);

    // One stream's bytes: its bound, or its one event when larger (and the chunks' framing).
    const perStream = Math.max(STREAM_BUFFER_BYTES, answerBytes) + 64 * 1024;
    assert.ok(
      queued <= MAX_STREAMS_PER_GRANT * perStream,
      `at most ${MAX_STREAMS_PER_GRANT} streams' worth queued`,
    );
    const bound = MAX_STREAMS_PER_GRANT * perStream + 16 * 2 ** 20;
    assert.ok(grew <= bound, `live memory grew by ${mib(grew)} (bound ${mib(bound)})`);
    assert.equal(
      sample(text, 'ppx_http_requests_total', { surface: 'a2a', status: '429' }),
      STREAMS - MAX_STREAMS_PER_GRANT,
      'the calls past the limit were refused',
    );

    // A reader that reads is told why, in words; once the unread ones go, the grant streams again.
    const refused = await fetch(`${p.url}/a2a`, { method: 'POST', headers, body: streamingCall(99) });
    assert.equal(refused.status, 429);
    const body = (await refused.json()) as { error: string; error_description: string };
    assert.equal(body.error, 'rate_limited');
    assert.match(body.error_description, /streams/);
    for (const s of sockets.splice(0)) s.destroy();
    for (;;) {
      const again = await fetch(`${p.url}/a2a`, { method: 'POST', headers, body: streamingCall(100) });
      await again.text();
      if (again.status === 200) break; // the server sees the sockets close shortly
      await pause();
    }
  });
});
