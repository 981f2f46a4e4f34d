import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { A2aTaskRecord } from '../../src/model/a2a-task.ts';
import { type A2aTaskQuery, IdConflictError, type Store } from '../../src/store/store.ts';
import { at, withStore } from '../support/store-records.ts';

// Store contract for A2A tasks (issue 13, docs/store.md "A2A tasks"): kept by the grant they were
// made under, which every read names; a task of another grant is exactly as absent as a missing one.

/** The Task JSON the SDK would give for these fields (the store never reads it, only keeps it). */
function taskJson(taskId: string, contextId: string, state: string, timestamp: string): string {
  return JSON.stringify({
    id: taskId,
    contextId,
    status: { state, timestamp, message: { role: 'ROLE_AGENT', parts: [{ text: 'prêt ✓' }] } },
    artifacts: [{ artifactId: 'a1', parts: [{ data: { claims: [{ key: 'novelty', value: 0.7 }] } }] }],
    history: [],
    metadata: {},
  });
}

function task(overrides: Partial<A2aTaskRecord> = {}): A2aTaskRecord {
  const task_id = overrides.task_id ?? randomUUID();
  const context_id = overrides.context_id ?? randomUUID();
  const state = overrides.state ?? 'TASK_STATE_COMPLETED';
  const updated_at = overrides.updated_at ?? at(0);
  return {
    task_id,
    owner: 'ppx:grant:a2a-contract',
    context_id,
    state,
    created_at: at(0),
    updated_at,
    body: taskJson(task_id, context_id, state, updated_at),
    ...overrides,
  };
}

function owner(): string {
  return `ppx:grant:${randomUUID()}`;
}

const isConflict = (id: string) => (error: unknown) => error instanceof IdConflictError && error.id === id;

/** Every page of a listing, following `next` until there is none. */
async function allPages(
  store: Store,
  who: string,
  query: Omit<A2aTaskQuery, 'after'>,
): Promise<{ pages: A2aTaskRecord[][]; totals: number[] }> {
  const pages: A2aTaskRecord[][] = [];
  const totals: number[] = [];
  let after: string | undefined;
  do {
    const page = await store.listA2aTasks(who, after === undefined ? query : { ...query, after });
    pages.push(page.tasks);
    totals.push(page.total);
    after = page.next;
    assert.ok(pages.length <= 1000, 'a listing that never ends');
  } while (after !== undefined);
  return { pages, totals };
}

const ids = (tasks: readonly A2aTaskRecord[]) => tasks.map((t) => t.task_id);

/** Newest updated_at first (as instants), ties by task_id ascending. */
function listed(tasks: readonly A2aTaskRecord[]): string[] {
  return ids(
    [...tasks].sort(
      (a, b) =>
        Date.parse(b.updated_at) - Date.parse(a.updated_at) ||
        (a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0),
    ),
  );
}

/**
 * `sameDatabase`, when given, returns an opener of one database that every call opens again: a
 * new instance on the same data (a reopened SQLite file, another PostgreSQL pool). Without it the
 * tests of durability and of several instances are skipped.
 */
export function a2aTaskContract(open: () => Promise<Store>, sameDatabase?: () => () => Promise<Store>): void {
  describe('A2A tasks', () => {
    it(
      'round-trips a task, its body byte for byte; a missing one is undefined',
      withStore(open, async (store) => {
        const t = task({ body: `{"id": "x",  "note":"spaces and \\u00e9 kept"}` });
        await store.putA2aTask(t);
        assert.deepEqual(await store.getA2aTask(t.task_id, t.owner), t);
        assert.equal((await store.getA2aTask(t.task_id, t.owner))?.body, t.body);
        const sdkLike = task();
        await store.putA2aTask(sdkLike);
        assert.deepEqual(await store.getA2aTask(sdkLike.task_id, sdkLike.owner), sdkLike);
        assert.equal(await store.getA2aTask('missing-task', t.owner), undefined);
      }),
    );

    it(
      'gives another owner nothing: undefined, as for a missing task, and an empty list',
      withStore(open, async (store) => {
        const mine = task({ owner: owner() });
        await store.putA2aTask(mine);
        const other = owner();
        assert.equal(await store.getA2aTask(mine.task_id, other), undefined);
        const empty = await store.listA2aTasks(other, { pageSize: 100 });
        assert.deepEqual(empty, { tasks: [], total: 0 });
        assert.equal('next' in empty, false);
        assert.deepEqual(await store.listA2aTasks(other, { pageSize: 100, contextId: mine.context_id }), {
          tasks: [],
          total: 0,
        });
        // The owner itself still sees it.
        assert.deepEqual(await store.listA2aTasks(mine.owner, { pageSize: 100 }), {
          tasks: [mine],
          total: 1,
        });
      }),
    );

    it(
      'replaces a task whole on a second put, keeping its first created_at',
      withStore(open, async (store) => {
        const first = task({ state: 'TASK_STATE_WORKING', created_at: at(1), updated_at: at(1) });
        await store.putA2aTask(first);
        const done = task({
          task_id: first.task_id,
          owner: first.owner,
          context_id: first.context_id,
          state: 'TASK_STATE_COMPLETED',
          created_at: at(9),
          updated_at: at(5),
        });
        await store.putA2aTask(done);
        const stored = await store.getA2aTask(first.task_id, first.owner);
        assert.deepEqual(stored, { ...done, created_at: at(1) });
        assert.notEqual(stored?.body, first.body);
        const page = await store.listA2aTasks(first.owner, { pageSize: 10 });
        assert.deepEqual(page, { tasks: [{ ...done, created_at: at(1) }], total: 1 });
        assert.deepEqual(
          await store.listA2aTasks(first.owner, { pageSize: 10, state: 'TASK_STATE_WORKING' }),
          {
            tasks: [],
            total: 0,
          },
        );
      }),
    );

    it(
      'refuses a put of a stored task id under another owner, changing nothing',
      withStore(open, async (store) => {
        const t = task({ owner: owner(), state: 'TASK_STATE_WORKING' });
        await store.putA2aTask(t);
        const thief = owner();
        const taken = task({
          task_id: t.task_id,
          owner: thief,
          context_id: t.context_id,
          state: 'TASK_STATE_CANCELED',
          updated_at: at(30),
        });
        await assert.rejects(store.putA2aTask(taken), isConflict(t.task_id));
        assert.deepEqual(await store.getA2aTask(t.task_id, t.owner), t);
        assert.equal(await store.getA2aTask(t.task_id, thief), undefined);
        assert.deepEqual(await store.listA2aTasks(thief, { pageSize: 10 }), { tasks: [], total: 0 });
        assert.deepEqual(await store.listA2aTasks(t.owner, { pageSize: 10 }), { tasks: [t], total: 1 });
        // Inside a transaction too, and the transaction can go on after it.
        await store.transaction(async (tx) => {
          await assert.rejects(tx.putA2aTask(taken), isConflict(t.task_id));
          await tx.putA2aTask({ ...t, state: 'TASK_STATE_COMPLETED', updated_at: at(2) });
        });
        assert.equal((await store.getA2aTask(t.task_id, t.owner))?.state, 'TASK_STATE_COMPLETED');
      }),
    );

    it(
      'lists newest updated_at first as instants, ties by task_id',
      withStore(open, async (store) => {
        const who = owner();
        const tasks = [
          task({ owner: who, task_id: 'b', updated_at: at(2) }),
          task({ owner: who, task_id: 'a', updated_at: at(2) }),
          task({ owner: who, task_id: 'c', updated_at: at(2) }),
          task({ owner: who, task_id: 'z', updated_at: at(1) }),
          // 09:45Z is later than 10:30+01:00 (09:30Z), which sorts after it as text.
          task({ owner: who, task_id: 'y', updated_at: '2026-03-01T10:30:00.000+01:00' }),
          task({ owner: who, task_id: 'x', updated_at: '2026-03-01T09:45:00.000Z' }),
          task({ owner: who, task_id: 'w', updated_at: at(-60) }),
        ];
        for (const t of tasks) await store.putA2aTask(t);
        await store.putA2aTask(task({ owner: owner(), updated_at: at(3) }));
        const page = await store.listA2aTasks(who, { pageSize: 100 });
        assert.deepEqual(ids(page.tasks), ['x', 'y', 'a', 'b', 'c', 'z', 'w']);
        assert.deepEqual(ids(page.tasks), listed(tasks));
        assert.equal(page.total, 7);
        assert.equal(page.next, undefined);
        assert.deepEqual(
          page.tasks.find((t) => t.task_id === 'y'),
          tasks[4],
        );
      }),
    );

    it(
      'pages 250 tasks with the cursor, without a duplicate or a gap, at any page size',
      withStore(open, async (store) => {
        const who = owner();
        // Five tasks per minute: ties at every instant, across page boundaries too.
        const tasks = Array.from({ length: 250 }, (_, i) =>
          task({ owner: who, task_id: `task-${(i * 7919) % 250}`, updated_at: at(Math.floor(i / 5)) }),
        );
        await store.transaction(async (tx) => {
          for (const t of tasks) await tx.putA2aTask(t);
          await tx.putA2aTask(task({ owner: owner(), updated_at: at(10) }));
        });
        const expected = listed(tasks);
        for (const pageSize of [100, 33, 1]) {
          const { pages, totals } = await allPages(store, who, { pageSize });
          const flat = pages.flat();
          assert.equal(pages.length, Math.ceil(250 / pageSize), `pages of ${pageSize}`);
          for (const p of pages.slice(0, -1)) assert.equal(p.length, pageSize);
          assert.deepEqual(ids(flat), expected, `pages of ${pageSize}`);
          assert.equal(new Set(ids(flat)).size, 250);
          assert.ok(
            totals.every((t) => t === 250),
            `totals ${totals}`,
          );
        }
        const byId = new Map(tasks.map((t) => [t.task_id, t]));
        const first = await store.listA2aTasks(who, { pageSize: 100 });
        for (const t of first.tasks) assert.deepEqual(t, byId.get(t.task_id));
      }),
    );

    it(
      'brings pageSize into 1..100',
      withStore(open, async (store) => {
        const who = owner();
        await store.transaction(async (tx) => {
          for (let i = 0; i < 120; i += 1) await tx.putA2aTask(task({ owner: who, updated_at: at(i) }));
        });
        for (const [asked, given] of [
          [0, 1],
          [-5, 1],
          [2.9, 2],
          [101, 100],
          [10_000, 100],
          [Number.NaN, 1],
        ] as const) {
          const page = await store.listA2aTasks(who, { pageSize: asked });
          assert.equal(page.tasks.length, given, `pageSize ${asked}`);
          assert.ok(page.next !== undefined);
          assert.equal(page.total, 120);
        }
      }),
    );

    it(
      'filters by contextId and by state, each and both, with the total of what matches',
      withStore(open, async (store) => {
        const who = owner();
        const states = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_WORKING'];
        const contexts = ['ctx-a', 'ctx-b'];
        const tasks = Array.from({ length: 60 }, (_, i) =>
          task({
            owner: who,
            context_id: contexts[i % 2]!,
            state: states[i % 3]!,
            updated_at: at(i % 7),
          }),
        );
        await store.transaction(async (tx) => {
          for (const t of tasks) await tx.putA2aTask(t);
          // Same context and state under another grant: never counted, never listed.
          await tx.putA2aTask(task({ owner: owner(), context_id: 'ctx-a', state: 'TASK_STATE_FAILED' }));
        });
        const cases: Omit<A2aTaskQuery, 'pageSize'>[] = [
          { contextId: 'ctx-a' },
          { contextId: 'ctx-b' },
          { state: 'TASK_STATE_FAILED' },
          { contextId: 'ctx-a', state: 'TASK_STATE_FAILED' },
          { contextId: 'ctx-b', state: 'TASK_STATE_WORKING' },
          { contextId: 'ctx-none' },
          { state: 'TASK_STATE_CANCELED' },
        ];
        for (const filter of cases) {
          const matching = tasks.filter(
            (t) =>
              (filter.contextId === undefined || t.context_id === filter.contextId) &&
              (filter.state === undefined || t.state === filter.state),
          );
          const { pages, totals } = await allPages(store, who, { ...filter, pageSize: 4 });
          assert.deepEqual(ids(pages.flat()), listed(matching), JSON.stringify(filter));
          assert.ok(
            totals.every((t) => t === matching.length),
            `${JSON.stringify(filter)}: totals ${totals}, expected ${matching.length}`,
          );
        }
      }),
    );

    it(
      'goes on from a cursor after saves in between: an unchanged task is neither repeated nor skipped',
      withStore(open, async (store) => {
        const who = owner();
        const tasks = Array.from({ length: 10 }, (_, i) => task({ owner: who, updated_at: at(i) }));
        for (const t of tasks) await store.putA2aTask(t);
        const first = await store.listA2aTasks(who, { pageSize: 4 });
        const expected = listed(tasks);
        assert.deepEqual(ids(first.tasks), expected.slice(0, 4));
        // A new task and a task of the first page saved again go to the front; one of the later
        // pages saved again goes there too and leaves its place.
        const moved = tasks.find((t) => t.task_id === expected[6])!;
        await store.putA2aTask(task({ owner: who, updated_at: at(20) }));
        await store.putA2aTask({ ...tasks.find((t) => t.task_id === expected[1])!, updated_at: at(21) });
        await store.putA2aTask({ ...moved, updated_at: at(22) });
        const { pages } = await allPages(store, who, { pageSize: 4 });
        assert.equal(pages.flat().length, 11);
        const rest = await store.listA2aTasks(who, { pageSize: 100, after: first.next! });
        assert.deepEqual(
          ids(rest.tasks),
          expected.slice(4).filter((id) => id !== moved.task_id),
        );
        assert.equal(rest.total, 11);
      }),
    );

    it(
      'refuses a cursor it did not give with RangeError',
      withStore(open, async (store) => {
        const who = owner();
        for (let i = 0; i < 3; i += 1) await store.putA2aTask(task({ owner: who, updated_at: at(i) }));
        const { next } = await store.listA2aTasks(who, { pageSize: 1 });
        assert.ok(next !== undefined);
        for (const bad of ['', 'garbage', `${next}x`, Buffer.from('t[1,2]').toString('base64url')]) {
          await assert.rejects(store.listA2aTasks(who, { pageSize: 1, after: bad }), RangeError, bad);
        }
      }),
    );

    it(
      'deletes the tasks of one owner only, and prunes rows older than an instant, oldest first',
      withStore(open, async (store) => {
        const gone = owner();
        const kept = owner();
        for (let i = 0; i < 3; i += 1) await store.putA2aTask(task({ owner: gone, updated_at: at(i) }));
        const other = task({ owner: kept, updated_at: at(1) });
        await store.putA2aTask(other);
        assert.equal(await store.deleteA2aTasksOf(gone), 3);
        assert.deepEqual(await store.listA2aTasks(gone, { pageSize: 10 }), { tasks: [], total: 0 });
        assert.deepEqual(await store.getA2aTask(other.task_id, kept), other);

        const aged = owner();
        const old = [task({ owner: aged, updated_at: at(0) }), task({ owner: aged, updated_at: at(1) })];
        const fresh = task({ owner: aged, updated_at: at(5) });
        for (const t of [...old, fresh]) await store.putA2aTask(t);
        // Only rows before the instant go, up to the limit, the oldest first.
        assert.equal(await store.pruneA2aTasks(at(2), 1), 1);
        assert.equal(await store.getA2aTask(old[0]!.task_id, aged), undefined);
        assert.ok(await store.getA2aTask(old[1]!.task_id, aged));
        assert.ok((await store.pruneA2aTasks(at(2), 100)) >= 1);
        assert.equal(await store.getA2aTask(old[1]!.task_id, aged), undefined);
        assert.deepEqual(await store.getA2aTask(fresh.task_id, aged), fresh);
      }),
    );

    it(
      'keeps a task’s counterpart grant, and deletes the tasks of any owner that drew on one (issue 22 item 1)',
      withStore(open, async (store) => {
        const counterpart = `ppx:grant:${randomUUID()}`;
        const a = task({ owner: owner(), counterpart });
        const b = task({ owner: owner(), counterpart });
        const plain = task({ owner: a.owner });
        const elsewhere = task({ owner: owner(), counterpart: `ppx:grant:${randomUUID()}` });
        for (const t of [a, b, plain, elsewhere]) await store.putA2aTask(t);
        assert.deepEqual(await store.getA2aTask(a.task_id, a.owner), a);
        assert.deepEqual(await store.getA2aTask(plain.task_id, plain.owner), plain, 'none: no member');
        assert.equal(await store.deleteA2aTasksReading(counterpart), 2);
        assert.equal(await store.getA2aTask(a.task_id, a.owner), undefined);
        assert.equal(await store.getA2aTask(b.task_id, b.owner), undefined);
        assert.deepEqual(await store.getA2aTask(plain.task_id, plain.owner), plain);
        assert.deepEqual(await store.getA2aTask(elsewhere.task_id, elsewhere.owner), elsewhere);
        assert.equal(await store.deleteA2aTasksReading(a.owner), 0, 'an owner is not a counterpart');
      }),
    );

    it(
      'trims one owner to a cap of tasks and of body bytes, oldest first, never the task it keeps (issue 22 item 11)',
      withStore(open, async (store) => {
        const who = owner();
        const other = task({ owner: owner(), updated_at: at(0) });
        await store.putA2aTask(other);
        // Bodies of 1,000 bytes, é counting two: the cap is in UTF-8 bytes, not characters.
        const sized = (i: number) => {
          const t = task({ owner: who, updated_at: at(i) });
          const body = JSON.stringify({ id: t.task_id, pad: '' });
          return { ...t, body: JSON.stringify({ id: t.task_id, pad: 'é'.repeat((1000 - body.length) / 2) }) };
        };
        const tasks = Array.from({ length: 6 }, (_, i) => sized(i));
        for (const t of tasks) assert.equal(Buffer.byteLength(t.body), 1000);
        for (const t of tasks) await store.putA2aTask(t);
        // Count: the 4 newest stay.
        assert.equal(await store.trimA2aTasksOf(who, { tasks: 4, bytes: 1_000_000 }, tasks[5]!.task_id), 2);
        assert.deepEqual(
          ids((await store.listA2aTasks(who, { pageSize: 10 })).tasks),
          listed(tasks.slice(2)),
        );
        // Bytes: 2,500 keeps the 2 newest (2,000 bytes), not a third.
        assert.equal(await store.trimA2aTasksOf(who, { tasks: 100, bytes: 2500 }, tasks[5]!.task_id), 2);
        assert.deepEqual(
          ids((await store.listA2aTasks(who, { pageSize: 10 })).tasks),
          listed(tasks.slice(4)),
        );
        // The kept task counts first and stays, whatever its time and size.
        assert.equal(await store.trimA2aTasksOf(who, { tasks: 1, bytes: 10 }, tasks[4]!.task_id), 1);
        assert.deepEqual(ids((await store.listA2aTasks(who, { pageSize: 10 })).tasks), [tasks[4]!.task_id]);
        // A task saved again counts its new size.
        const grown = {
          ...tasks[4]!,
          body: JSON.stringify({ id: tasks[4]!.task_id, pad: 'x'.repeat(5000) }),
        };
        await store.putA2aTask(grown);
        const small = sized(9);
        await store.putA2aTask(small);
        assert.equal(await store.trimA2aTasksOf(who, { tasks: 100, bytes: 5000 }, small.task_id), 1);
        assert.deepEqual(ids((await store.listA2aTasks(who, { pageSize: 10 })).tasks), [small.task_id]);
        assert.deepEqual(await store.getA2aTask(other.task_id, other.owner), other, 'other owners untouched');
      }),
    );

    it(
      'a trim by count alone keeps the kept task and the newest others, however old it is and whatever ties',
      withStore(open, async (store) => {
        const who = owner();
        // Two pairs saved at the same instant: the order among equals is the listing's.
        const times = [0, 1, 1, 2, 3, 3, 4];
        const tasks = times.map((t) => task({ owner: who, updated_at: at(t) }));
        for (const t of tasks) await store.putA2aTask(t);
        const newestFirst = ids((await store.listA2aTasks(who, { pageSize: 10 })).tasks);
        const keep = newestFirst[5]!;
        assert.equal(await store.trimA2aTasksOf(who, { tasks: 3, bytes: 1_000_000 }, keep), 4);
        assert.deepEqual(ids((await store.listA2aTasks(who, { pageSize: 10 })).tasks), [
          newestFirst[0],
          newestFirst[1],
          keep,
        ]);
        assert.equal(await store.trimA2aTasksOf(who, { tasks: 3, bytes: 1_000_000 }, keep), 0);
      }),
    );

    it(
      'rolls a put back with its transaction',
      withStore(open, async (store) => {
        const t = task({ owner: owner() });
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.putA2aTask(t);
            assert.deepEqual(await tx.getA2aTask(t.task_id, t.owner), t);
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.equal(await store.getA2aTask(t.task_id, t.owner), undefined);
        assert.deepEqual(await store.listA2aTasks(t.owner, { pageSize: 10 }), { tasks: [], total: 0 });
      }),
    );

    // Only where one database can be opened twice (a file, a server): an in-memory store has no
    // second instance, and these tests are then not there rather than skipped.
    const shared = sameDatabase === undefined ? () => undefined : it;
    shared('keeps tasks when the store is closed and opened again', async () => {
      const reopen = sameDatabase!();
      const t = task({ owner: owner(), state: 'TASK_STATE_WORKING' });
      const first = await reopen();
      try {
        await first.putA2aTask(t);
      } finally {
        await first.close();
      }
      const second = await reopen();
      try {
        assert.deepEqual(await second.getA2aTask(t.task_id, t.owner), t);
        assert.deepEqual(await second.listA2aTasks(t.owner, { pageSize: 10 }), { tasks: [t], total: 1 });
        const done = { ...t, state: 'TASK_STATE_COMPLETED', updated_at: at(3), created_at: at(3) };
        await second.putA2aTask(done);
        await assert.rejects(second.putA2aTask({ ...t, owner: owner() }), isConflict(t.task_id));
      } finally {
        await second.close();
      }
      const third = await reopen();
      try {
        const stored = await third.getA2aTask(t.task_id, t.owner);
        assert.equal(stored?.state, 'TASK_STATE_COMPLETED');
        assert.equal(stored?.created_at, t.created_at);
      } finally {
        await third.close();
      }
    });

    shared('shows a task saved by one instance to another open at the same time', async () => {
      const reopen = sameDatabase!();
      const a = await reopen();
      const b = await reopen();
      try {
        const t = task({ owner: owner(), state: 'TASK_STATE_WORKING' });
        assert.equal(await b.getA2aTask(t.task_id, t.owner), undefined);
        await a.putA2aTask(t);
        assert.deepEqual(await b.getA2aTask(t.task_id, t.owner), t);
        const done = { ...t, state: 'TASK_STATE_COMPLETED', updated_at: at(4) };
        await a.putA2aTask(done);
        assert.deepEqual(await b.getA2aTask(t.task_id, t.owner), done);
        assert.deepEqual(await b.listA2aTasks(t.owner, { pageSize: 10 }), { tasks: [done], total: 1 });
        // The owner check holds across instances: b cannot take a's task for another grant.
        await assert.rejects(b.putA2aTask({ ...done, owner: owner() }), isConflict(t.task_id));
        assert.deepEqual(await a.getA2aTask(t.task_id, t.owner), done);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
