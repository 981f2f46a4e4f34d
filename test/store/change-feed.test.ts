import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ChangeEvent } from '../../src/model/change-event.ts';
import { ChangeFeedOverflow, type ChangeSubscription } from '../../src/store/change-feed.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { changeDraft } from './contract-changes.ts';

// The in-process change feed (src/store/in-process-change-feed.ts), driven through the SQLite
// store that owns it: what a subscriber gets, in which order, and what a slow one costs.

let dir = '';
let files = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ppx-change-feed-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function openFile(): Promise<{ store: Store; path: string }> {
  files += 1;
  const path = join(dir, `feed-${files}.db`);
  return { store: await openSqliteStore(path), path };
}

async function withFileStore(body: (store: Store, path: string) => Promise<void>): Promise<void> {
  const { store, path } = await openFile();
  try {
    await body(store, path);
  } finally {
    await store.close();
  }
}

/** Takes exactly `n` events, failing if the subscription ends first. */
async function take(subscription: ChangeSubscription, n: number): Promise<ChangeEvent[]> {
  const iterator = subscription[Symbol.asyncIterator]();
  const out: ChangeEvent[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    assert.equal(next.done, false, `the subscription ended after ${out.length} of ${n} events`);
    out.push(next.value);
  }
  return out;
}

async function appendMany(store: Store, n: number, subject = 'subj_feed'): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  for (let i = 0; i < n; i++) out.push(await store.appendChange(changeDraft({ subject_id: subject })));
  return out;
}

function seqs(events: readonly ChangeEvent[]): number[] {
  return events.map((e) => e.seq);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

describe('change feed: filters', () => {
  it('delivers only what matches subject, grants and kinds; an empty filter matches all', () =>
    withFileStore(async (store) => {
      const all = store.changes.subscribe({});
      const bySubject = store.changes.subscribe({ subjectId: 'subj_a' });
      const byGrant = store.changes.subscribe({ grantIds: ['g2', 'g9'] });
      const byKind = store.changes.subscribe({ kinds: ['grant_revoked', 'grant_expired'] });
      const combined = store.changes.subscribe({ subjectId: 'subj_a', kinds: ['grant_revoked'] });
      const e1 = await store.appendChange(changeDraft({ subject_id: 'subj_a', grants: ['g1'] }));
      const e2 = await store.appendChange(
        changeDraft({ subject_id: 'subj_b', kind: 'grant_revoked', grants: ['g2'] }),
      );
      const e3 = await store.appendChange(
        changeDraft({ subject_id: 'subj_a', kind: 'grant_revoked', grants: ['g1', 'g9'] }),
      );
      const e4 = await store.appendChange(changeDraft({ subject_id: 'subj_b', grants: [] }));
      assert.deepEqual(await take(all, 4), [e1, e2, e3, e4]);
      assert.deepEqual(await take(bySubject, 2), [e1, e3]);
      assert.deepEqual(await take(byGrant, 2), [e2, e3]);
      assert.deepEqual(await take(byKind, 2), [e2, e3]);
      assert.deepEqual(await take(combined, 1), [e3]);
      // Nothing else is waiting: the next event each gets is one appended now.
      const e5 = await store.appendChange(
        changeDraft({ subject_id: 'subj_a', kind: 'grant_expired', grants: ['g9'] }),
      );
      for (const s of [all, bySubject, byGrant, byKind]) assert.deepEqual(await take(s, 1), [e5]);
      for (const s of [all, bySubject, byGrant, byKind, combined]) s.close();
    }));

  it('a replay applies the same filter as live delivery', () =>
    withFileStore(async (store) => {
      const a1 = await store.appendChange(changeDraft({ subject_id: 'subj_a', grants: ['g1'] }));
      await store.appendChange(changeDraft({ subject_id: 'subj_b', grants: ['g1'] }));
      const a2 = await store.appendChange(
        changeDraft({ subject_id: 'subj_a', kind: 'grant_revoked', grants: ['g2'] }),
      );
      const s = store.changes.subscribe({ subjectId: 'subj_a', grantIds: ['g2'] }, { fromSeq: 0 });
      assert.deepEqual(await take(s, 1), [a2]);
      const t = store.changes.subscribe({ subjectId: 'subj_a' }, { fromSeq: 0 });
      assert.deepEqual(await take(t, 2), [a1, a2]);
      s.close();
      t.close();
    }));
});

describe('change feed: resume from a sequence', () => {
  it('replays every event after fromSeq, then goes on live, none twice and none skipped', () =>
    withFileStore(async (store) => {
      const before = await appendMany(store, 5);
      const s = store.changes.subscribe({}, { fromSeq: before[1]!.seq });
      // Committed after subscribing but before the replay's first query: live and in the outbox.
      const between = await appendMany(store, 2);
      const first = await take(s, 3);
      const live = await appendMany(store, 2);
      const rest = await take(s, 4);
      assert.deepEqual(seqs([...first, ...rest]), [
        ...seqs(before.slice(2)),
        ...seqs(between),
        ...seqs(live),
      ]);
      // Nothing more is buffered: the next event is the next commit.
      const [next] = await appendMany(store, 1);
      assert.deepEqual(await take(s, 1), [next]);
      s.close();
    }));

  it('includes events committed during a replay of several pages, in order, once each', () =>
    withFileStore(async (store) => {
      const old = await appendMany(store, 1200);
      const s = store.changes.subscribe({}, { fromSeq: 0, buffer: 100 });
      const iterator = s[Symbol.asyncIterator]();
      const got: number[] = [];
      const during: ChangeEvent[] = [];
      for (let i = 0; i < 1250; i++) {
        // Between pages and inside them, new events commit while the replay is still going.
        if (i % 100 === 0 && during.length < 50) during.push(...(await appendMany(store, 10)));
        const next = await iterator.next();
        assert.equal(next.done, false);
        got.push(next.value.seq);
      }
      assert.equal(during.length, 50);
      assert.deepEqual(got, range(old[0]!.seq, during.at(-1)!.seq));
      s.close();
    }));

  it('never delivers a seq at or below fromSeq, even one committed later', () =>
    withFileStore(async (store) => {
      const [last] = await appendMany(store, 1);
      const ahead = store.changes.subscribe({}, { fromSeq: last!.seq + 2 });
      const iterator = ahead[Symbol.asyncIterator]();
      const waiting = iterator.next();
      await appendMany(store, 2);
      const [third] = await appendMany(store, 1);
      assert.deepEqual((await waiting).value, third);
      ahead.close();
    }));

  it('fills a gap left by another process writing the same file before delivering past it', () =>
    withFileStore(async (store, path) => {
      const s = store.changes.subscribe({});
      const other = await openSqliteStore(path);
      let theirs: ChangeEvent[];
      try {
        theirs = await appendMany(other, 3, 'subj_cli');
      } finally {
        await other.close();
      }
      const ours = await appendMany(store, 1);
      assert.deepEqual(seqs(await take(s, 4)), [...seqs(theirs), ...seqs(ours)]);
      s.close();
    }));
});

describe('change feed: a slow subscriber', () => {
  it('overflows its bounded buffer without slowing writers, then resumes from the outbox', () =>
    withFileStore(async (store) => {
      const reader = store.changes.subscribe({}, { buffer: 10 });
      const watcher = store.changes.subscribe({}, { buffer: 1000 });
      const iterator = reader[Symbol.asyncIterator]();
      const [first] = await appendMany(store, 1);
      assert.deepEqual((await iterator.next()).value, first);
      // The reader stalls: every one of these writes completes while it reads nothing.
      const written = await appendMany(store, 200);
      assert.equal(written.length, 200);
      await assert.rejects(
        iterator.next(),
        (e: unknown) => e instanceof ChangeFeedOverflow && e.lastSeq === first!.seq,
      );
      assert.equal((await iterator.next()).done, true, 'an overflowed subscription stays ended');
      // The other subscriber was not affected.
      assert.deepEqual(seqs(await take(watcher, 201)), [first!.seq, ...seqs(written)]);
      // Resuming from the seq the error carries misses nothing.
      const again = store.changes.subscribe({}, { fromSeq: first!.seq });
      assert.deepEqual(seqs(await take(again, 200)), seqs(written));
      again.close();
      watcher.close();
    }));

  it('an overflow before anything was delivered carries the starting point', () =>
    withFileStore(async (store) => {
      const [start] = await appendMany(store, 1);
      const stalled = store.changes.subscribe({}, { buffer: 2 });
      await appendMany(store, 3);
      await assert.rejects(
        stalled[Symbol.asyncIterator]().next(),
        (e: unknown) => e instanceof ChangeFeedOverflow && e.lastSeq === start!.seq,
      );
      const replayed = store.changes.subscribe({}, { fromSeq: 0, buffer: 2 });
      // The replay is read page by page as the reader asks, so it is not bounded by the buffer.
      assert.equal((await take(replayed, 4)).length, 4);
      replayed.close();
    }));
});

describe('change feed: close', () => {
  it('close ends a waiting reader and a for-await loop, and nothing is buffered after it', () =>
    withFileStore(async (store) => {
      const s = store.changes.subscribe({});
      const iterator = s[Symbol.asyncIterator]();
      const waiting = iterator.next();
      s.close();
      assert.equal((await waiting).done, true);
      await appendMany(store, 3);
      assert.equal((await iterator.next()).done, true);
      s.close();

      const looped = store.changes.subscribe({});
      const seen: number[] = [];
      const loop = (async () => {
        for await (const event of looped) {
          seen.push(event.seq);
          if (seen.length === 2) break;
        }
      })();
      const events = await appendMany(store, 3);
      await loop;
      assert.deepEqual(seen, seqs(events.slice(0, 2)));
    }));

  it('closing the store ends every subscription', async () => {
    const { store } = await openFile();
    const s = store.changes.subscribe({}, { fromSeq: 0 });
    const waiting = s[Symbol.asyncIterator]().next();
    await store.close();
    assert.equal((await waiting).done, true);
  });
});
