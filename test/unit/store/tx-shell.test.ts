import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  inSavepoint,
  newTxState,
  type Savepoint,
  TransactionGuard,
  txFacade,
} from '../../../src/store/tx-shell.ts';

// The transaction shell both store drivers share (src/store/tx-shell.ts): a savepoint per write,
// synchronous all through for SQLite and awaited for PostgreSQL, and the tx facade's guards.

/** A savepoint that logs its statements, synchronous or async. */
function loggingSavepoint(log: string[], async = false): Savepoint {
  const step = (name: string) => () => {
    log.push(name);
    return async ? Promise.resolve() : undefined;
  };
  return { begin: step('begin'), release: step('release'), rollbackTo: step('rollbackTo') };
}

describe('inSavepoint', () => {
  it('runs a synchronous call between begin and release, returning its value without a promise', () => {
    const log: string[] = [];
    const result = inSavepoint(loggingSavepoint(log), () => {
      log.push('call');
      return 42;
    });
    assert.equal(result, 42);
    assert.deepEqual(log, ['begin', 'call', 'release']);
  });

  it('rolls back to the savepoint when a synchronous call throws, and rethrows its error', () => {
    const log: string[] = [];
    assert.throws(
      () =>
        inSavepoint(loggingSavepoint(log), () => {
          throw new Error('duplicate id');
        }),
      /duplicate id/,
    );
    assert.deepEqual(log, ['begin', 'rollbackTo']);
  });

  it('rolls back when the release fails', () => {
    const log: string[] = [];
    const savepoint: Savepoint = {
      ...loggingSavepoint(log),
      release: () => {
        throw new Error('release failed');
      },
    };
    assert.throws(() => inSavepoint(savepoint, () => 1), /release failed/);
    assert.deepEqual(log, ['begin', 'rollbackTo']);
  });

  it('awaits async statements and an async call, releasing after it resolves', async () => {
    const log: string[] = [];
    const result = await inSavepoint(loggingSavepoint(log, true), async () => {
      log.push('call');
      return 'done';
    });
    assert.equal(result, 'done');
    assert.deepEqual(log, ['begin', 'call', 'release']);
  });

  it('rolls back after an async call rejects, and rejects with its error', async () => {
    const log: string[] = [];
    await assert.rejects(
      inSavepoint(loggingSavepoint(log, true), async () => {
        log.push('call');
        throw new Error('conflict');
      }),
      /conflict/,
    );
    assert.deepEqual(log, ['begin', 'call', 'rollbackTo']);
  });
});

describe('txFacade', () => {
  const queries = new Proxy(
    {},
    {
      get: (_target, name) =>
        name === 'appendChange' ? (draft: object) => ({ seq: 7, ...draft }) : () => name,
    },
  );

  it('runs each write in a savepoint, remembers appended change events, and refuses calls once settled', async () => {
    const log: string[] = [];
    const state = newTxState();
    const tx = txFacade({ state, queries, savepoint: loggingSavepoint(log) });
    assert.equal(await tx.getGrant('g'), 'getGrant');
    assert.deepEqual(log, [], 'a read takes no savepoint');
    await tx.insertGrant({} as never);
    assert.deepEqual(log, ['begin', 'release']);
    const event = await tx.appendChange({ kind: 'grant_created' } as never);
    assert.deepEqual(state.changes, [event]);
    state.active = false;
    await assert.rejects(tx.getGrant('g'), /transaction is over/);
    await assert.rejects(tx.insertGrant({} as never), /transaction is over/);
    assert.equal(state.changes.length, 1);
  });

  it('takes each writer’s own savepoint when given one per method, and reports each write that succeeded', async () => {
    const log: string[] = [];
    const asked: string[] = [];
    const wrote: string[] = [];
    const tx = txFacade({
      state: newTxState(),
      queries,
      savepoint: (method) => {
        asked.push(method);
        return loggingSavepoint(log, true);
      },
      wrote: (method) => wrote.push(method),
    });
    await tx.putClient({} as never);
    await tx.getGrant('g');
    assert.deepEqual(asked, ['putClient']);
    assert.deepEqual(log, ['begin', 'release']);
    assert.deepEqual(wrote, ['putClient']);
  });

  it('runs the driver check before each call', async () => {
    const tx = txFacade({
      state: newTxState(),
      queries,
      savepoint: loggingSavepoint([]),
      check: () => {
        throw new Error('rolled back by the database');
      },
    });
    await assert.rejects(tx.getGrant('g'), /rolled back by the database/);
  });
});

describe('TransactionGuard', () => {
  it('refuses the store from inside an active transaction, and allows it once the transaction settled', () => {
    const guard = new TransactionGuard();
    const state = newTxState();
    guard.assertOutside();
    guard.run(state, () => assert.throws(() => guard.assertOutside(), /use the tx argument/));
    guard.run(state, () => {
      state.active = false;
      guard.assertOutside();
    });
  });
});
