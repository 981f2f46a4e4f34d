import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Mutex } from '../../../src/store/mutex.ts';

// The stores' write queue (store/mutex.ts): one task at a time, in the order asked; SQLite's store
// gives it a `before` that holds each task while its checkpoint thread rewinds the WAL.

describe('Mutex', () => {
  it('runs tasks one at a time, in the order they were asked, whatever their outcome', async () => {
    const mutex = new Mutex();
    const log: string[] = [];
    const slow = mutex.run(async () => {
      log.push('a starts');
      await nextTurn();
      log.push('a ends');
      throw new Error('a fails');
    });
    const next = mutex.run(() => {
      log.push('b');
      return 'b';
    });
    await assert.rejects(slow, /a fails/);
    assert.equal(await next, 'b');
    assert.deepEqual(log, ['a starts', 'a ends', 'b']);
  });

  it('holds each task while `before` gives a promise, and only then', async () => {
    let gate: Promise<unknown> | undefined;
    let open!: () => void;
    const mutex = new Mutex(() => gate);
    const log: string[] = [];
    assert.equal(await mutex.run(() => 'free'), 'free', 'an undefined `before` holds nothing');
    gate = new Promise<void>((resolve) => (open = resolve));
    const held = mutex.run(() => log.push('held task'));
    // Turns of the event loop go by (other work goes on) and the task has not started.
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.deepEqual(log, []);
    gate = undefined;
    open();
    await held;
    assert.deepEqual(log, ['held task']);
  });

  it('runs the task after a `before` promise that fails (a wait, not a check)', async () => {
    const mutex = new Mutex(() => Promise.reject(new Error('timed out')));
    assert.equal(await mutex.run(() => 'ran'), 'ran');
  });
});
