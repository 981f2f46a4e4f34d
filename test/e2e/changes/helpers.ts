import assert from 'node:assert/strict';
import type { ChangeEvent, ChangeIds, ChangeKind } from '../../../src/model/change-event.ts';
import type { ChangeFilter, ChangeSubscription } from '../../../src/store/change-feed.ts';
import type { TestProvider } from '../../support/provider.ts';

// Watching change events in the e2e suites: a subscriber on the provider's own change feed
// (p.deps.changes, the port surfaces subscribe through), started before a write, and the outbox
// rows the write left. Not a *.test.ts file.

/** What an event must be: its kind and subject, and exactly these ids and grants where given. */
export interface Expected {
  readonly kind: ChangeKind;
  /** Defaults to the demo subject. */
  readonly subject?: string;
  readonly ids?: { readonly [K in keyof ChangeIds]?: readonly string[] };
  /** Exactly these grants (sorted in the event). */
  readonly grants?: readonly string[];
  /** At least these grants (a claim change may name more: a superset is allowed). */
  readonly grantsInclude?: readonly string[];
}

export interface Watch {
  /** The seq the watch started after. */
  readonly from: number;
  /** The next `n` events delivered to the subscriber (already delivered, or it fails). */
  next(n: number): Promise<ChangeEvent[]>;
  /**
   * Asserts that `events` arrive next, in order, and that the outbox holds exactly these rows
   * after the watch's start (or its last check), then moves the start past them.
   */
  expect(...events: Expected[]): Promise<ChangeEvent[]>;
  /**
   * Asserts that nothing was announced since the last check: the outbox has no new row, and the
   * next event the subscriber gets is a marker appended now (so nothing was waiting before it).
   */
  quiet(): Promise<void>;
  close(): void;
}

/** A live subscriber on every event of the provider (each e2e file has a provider of its own). */
export async function watch(p: TestProvider, filter: ChangeFilter = {}): Promise<Watch> {
  let from = await p.store.latestChangeSeq();
  const subscription: ChangeSubscription = p.deps.changes.subscribe(filter);
  const iterator = subscription[Symbol.asyncIterator]();
  const next = async (n: number) => {
    const out: ChangeEvent[] = [];
    while (out.length < n) {
      const r = await delivered(iterator.next(), `event ${out.length + 1} of ${n}`);
      assert.equal(r.done, false, `the subscription ended after ${out.length} of ${n} events`);
      out.push(r.value);
    }
    return out;
  };
  return {
    get from() {
      return from;
    },
    next,
    async expect(...expected) {
      const got = await next(expected.length);
      for (const [i, e] of expected.entries()) assertEvent(got[i]!, e, p.subjectId, i);
      const rows = await p.store.listChanges({ after: from, limit: 1000 });
      assert.deepEqual(rows, got, 'the outbox holds exactly the events delivered, and no other');
      from = got.at(-1)?.seq ?? from;
      return got;
    },
    async quiet() {
      assert.deepEqual(await p.store.listChanges({ after: from, limit: 10 }), [], 'nothing was announced');
      const marker = await p.store.appendChange({
        subject_id: filter.subjectId ?? p.subjectId,
        kind: filter.kinds?.[0] ?? 'sensitive_keys_changed',
        ids: { namespaces: ['test-marker'] },
        grants: filter.grantIds !== undefined ? [...filter.grantIds] : [],
        at: new Date().toISOString(),
      });
      assert.deepEqual(await next(1), [marker], 'no event was waiting before the marker');
      from = marker.seq;
    },
    close: () => subscription.close(),
  };
}

/**
 * An event is published synchronously at commit, before the response is sent, so by the time a
 * test looks it is already waiting in the subscription: the promise settles within a few turns
 * of the event loop (no timer involved). If it does not, the write announced nothing.
 */
async function delivered<T>(next: Promise<T>, what: string): Promise<T> {
  let settled = false;
  const watched = next.finally(() => {
    settled = true;
  });
  for (let turn = 0; turn < 20 && !settled; turn++) await new Promise((resolve) => setImmediate(resolve));
  if (!settled) {
    watched.catch(() => undefined);
    assert.fail(`${what} was not delivered: nothing was announced`);
  }
  return watched;
}

function assertEvent(event: ChangeEvent, e: Expected, demoSubject: string, i: number): void {
  const where = `event ${i} (${JSON.stringify(event)})`;
  assert.equal(event.kind, e.kind, where);
  assert.equal(event.subject_id, e.subject ?? demoSubject, where);
  for (const [name, ids] of Object.entries(e.ids ?? {})) {
    const actual = event.ids[name as keyof ChangeIds];
    assert.deepEqual([...(actual ?? [])].sort(), [...(ids ?? [])].sort(), `${where}: ids.${name}`);
  }
  if (e.grants !== undefined) assert.deepEqual(event.grants, [...e.grants].sort(), `${where}: grants`);
  for (const g of e.grantsInclude ?? []) assert.ok(event.grants.includes(g), `${where}: grants include ${g}`);
  // Events carry ids, never values: nothing but arrays of strings under ids.
  for (const list of Object.values(event.ids)) {
    assert.ok(Array.isArray(list) && list.every((x) => typeof x === 'string'), where);
  }
}
