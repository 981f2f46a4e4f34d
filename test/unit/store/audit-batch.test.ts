import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../../src/model/audit-event.ts';
import { AuditBatcher, type AuditSink } from '../../../src/store/audit-batch.ts';
import { auditEvent } from '../../support/store-records.ts';

// The audit log's group commit, shared by both store drivers (src/store/audit-batch.ts): appends
// of one turn share one write; a failed batch is written again item by item, the bad one failing alone.

/** A sink that refuses any event whose id is in `bad`, and logs what it was asked to write. */
function sink(bad: ReadonlySet<string>, closed = () => false) {
  const calls: { kind: 'all' | 'each'; ids: string[][] }[] = [];
  const check = (events: readonly AuditEvent[]) => {
    const refused = events.find((e) => bad.has(e.event_id));
    if (refused !== undefined) throw new Error(`duplicate ${refused.event_id}`);
  };
  const target: AuditSink = {
    isClosed: closed,
    writeAll(events) {
      calls.push({ kind: 'all', ids: [events.map((e) => e.event_id)] });
      check(events);
    },
    async writeEach(items) {
      calls.push({ kind: 'each', ids: items.map((events) => events.map((e) => e.event_id)) });
      return items.map((events) => {
        try {
          check(events);
          return undefined;
        } catch (error) {
          return error;
        }
      });
    },
  };
  return { target, calls };
}

const event = (id: string) => auditEvent({ event_id: id });

describe('AuditBatcher', () => {
  it('writes the appends of one turn of the event loop in one call, in the order they were made', async () => {
    const { target, calls } = sink(new Set());
    const batcher = new AuditBatcher(target);
    await Promise.all([batcher.append([event('a')]), batcher.append([event('b'), event('c')])]);
    assert.deepEqual(calls, [{ kind: 'all', ids: [['a', 'b', 'c']] }]);
  });

  it('writes a failed batch again item by item, so that only the bad item fails', async () => {
    const { target, calls } = sink(new Set(['b']));
    const batcher = new AuditBatcher(target);
    const outcomes = await Promise.allSettled([
      batcher.append([event('a')]),
      batcher.append([event('b')]),
      batcher.append([event('c')]),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /duplicate b/);
    assert.deepEqual(
      calls.map((c) => c.kind),
      ['all', 'each'],
    );
  });

  it('fails a batch of one with its own error, without a retry', async () => {
    const { target, calls } = sink(new Set(['a']));
    await assert.rejects(new AuditBatcher(target).append([event('a')]), /duplicate a/);
    assert.equal(calls.length, 1);
  });

  it('fails every caller once the store is closed, writing nothing', async () => {
    const { target, calls } = sink(new Set(), () => true);
    await assert.rejects(new AuditBatcher(target).append([event('a')]), /store is closed/);
    assert.deepEqual(calls, []);
  });

  it('runs a whole flush inside the sink’s exclusive section', async () => {
    const { target } = sink(new Set(['b']));
    const log: string[] = [];
    const batcher = new AuditBatcher({
      ...target,
      exclusive: async (flush) => {
        log.push('enter');
        await flush();
        log.push('leave');
      },
    });
    await Promise.allSettled([batcher.append([event('a')]), batcher.append([event('b')])]);
    assert.deepEqual(log, ['enter', 'leave']);
  });
});

describe('AuditBatcher.flush', () => {
  it('settles only when the flushes already under way have answered their callers', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const written: string[] = [];
    const batcher = new AuditBatcher({
      isClosed: () => false,
      async writeAll(events) {
        await gate;
        written.push(...events.map((e) => e.event_id));
      },
      writeEach: () => [],
    });
    const first = batcher.append([event('a')]);
    await new Promise((resolve) => setImmediate(resolve));
    const flushed = batcher.flush().then(() => written.slice());
    release();
    assert.deepEqual(await flushed, ['a']);
    await first;
  });
});
