import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { Metrics } from '../../../../src/operations/provider/metrics.ts';
import { type BoundedSink, boundedStream } from '../../../../src/surfaces/shared/bounded-stream.ts';

// The bound of one stream (issue 22, item 8): what waits for the reader (the stream's queue and
// the response's writableLength) never passes the limit by more than the one event that found
// it full; that write cuts the stream instead, once, counted in ppx_streams_cut_total.

const bytes = (n: number) => new Uint8Array(n);

/** A node response as far as the stream sees one: bytes the kernel has not taken, and destroy. */
class FakeOutgoing extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  writableFinished = false;
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

function open(limitBytes: number, outgoing?: FakeOutgoing) {
  const metrics = new Metrics();
  const calls = { ended: 0, flushed: 0 };
  let sink!: BoundedSink;
  const stream = boundedStream(
    {
      surface: 'agui',
      metrics,
      limitBytes,
      onEnd: () => calls.ended++,
      onFlushed: () => calls.flushed++,
      ...(outgoing ? { outgoing } : {}),
    },
    (s) => {
      sink = s;
    },
  );
  const gauge = async () =>
    (await metrics.streamBufferedBytes.get()).values.find((v) => v.labels.surface === 'agui')?.value;
  const cut = async () => (await metrics.streamsCut.get()).values[0]?.value ?? 0;
  return { stream, sink, calls, gauge, cut };
}

describe('a bounded stream', () => {
  it('queues up to the limit unread, and the write past it cuts the stream (erroring it, no response)', async () => {
    const s = open(1000);
    assert.ok(s.sink.write(bytes(600)));
    assert.ok(s.sink.write(bytes(400)));
    assert.equal(await s.gauge(), 1000);
    assert.equal(s.sink.write(bytes(1)), false, 'one byte more is past the bound');
    assert.equal(s.sink.open, false);
    assert.equal(await s.cut(), 1);
    assert.deepEqual(s.calls, { ended: 1, flushed: 1 });
    assert.equal(await s.gauge(), 0, 'a cut stream counts no more');
    await assert.rejects(s.stream.getReader().read(), /fell too far behind/);
    assert.equal(s.sink.write(bytes(1)), false, 'nothing after the cut');
    assert.equal(await s.cut(), 1, 'cut once');
  });

  it('a reader that keeps up is never cut, and one event larger than the bound still goes to it', async () => {
    const s = open(1000);
    const reader = s.stream.getReader();
    for (let i = 0; i < 10; i++) {
      assert.ok(s.sink.write(bytes(900)));
      assert.equal((await reader.read()).value?.byteLength, 900);
    }
    assert.ok(s.sink.write(bytes(5000)), 'nothing waits: a large event goes');
    assert.equal((await reader.read()).value?.byteLength, 5000);
    s.sink.close();
    assert.equal((await reader.read()).done, true);
    assert.equal(await s.cut(), 0);
    assert.deepEqual(s.calls, { ended: 1, flushed: 1 });
  });

  it("counts the response's unread bytes, destroys the response when cut, and is flushed only once they left", async () => {
    const outgoing = new FakeOutgoing();
    const s = open(1000, outgoing);
    const reader = s.stream.getReader();
    assert.ok(s.sink.write(bytes(300)));
    await reader.read(); // taken by the server, written to the response
    outgoing.writableLength = 800;
    assert.equal(await s.gauge(), 800);
    assert.ok(s.sink.write(bytes(200)), 'exactly the bound');
    assert.equal(s.sink.write(bytes(1)), false);
    assert.ok(outgoing.destroyed, 'the connection is dropped, and its buffer with it');
    assert.deepEqual(s.calls, { ended: 1, flushed: 1 });

    const outgoing2 = new FakeOutgoing();
    const t = open(1000, outgoing2);
    t.sink.write(bytes(10));
    outgoing2.writableLength = 10;
    t.sink.close();
    assert.deepEqual(t.calls, { ended: 1, flushed: 0 }, 'ended, but its bytes are still here');
    assert.equal(await t.gauge(), 20);
    outgoing2.writableLength = 0;
    outgoing2.writableFinished = true;
    outgoing2.emit('finish');
    assert.deepEqual(t.calls, { ended: 1, flushed: 1 });
  });
});
