import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../src/model/audit-event.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { subjectAuditLog } from '../support/audit.ts';
import { runModuleChild, SQLITE_STORE_IMPORT, withSqliteFile } from '../support/sqlite-file.ts';
import { auditEvent, subjectId } from '../support/store-records.ts';

// The audit journal's moves on their own thread (src/store/sqlite/audit-mover.ts): appends go on
// while a move runs, into a file of their own; the log keeps the order of the appends, a write
// transaction's events included; a process killed at any point of a move loses and repeats
// nothing.

const withFile = (body: (path: string) => Promise<void>) => withSqliteFile('audit-mover', body);

/** The journal's segment numbers now (a move on the thread closes the file it takes). */
function segments(path: string): number[] {
  return readdirSync(`${path}-audit`)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => Number(/-(\d+)\.jsonl$/.exec(name)?.[1]));
}

/** Appends and moves until a move has gone through the thread (a file past the first was opened). */
async function untilTheThreadMoves(store: Store, subject: string): Promise<AuditEvent[]> {
  const appended: AuditEvent[] = [];
  for (let i = 0; i < 200; i++) {
    const event = auditEvent({ subject_id: subject });
    await store.appendAudit([event]);
    appended.push(event);
    await store.listAudit({ subject_id: subject, limit: 1 });
    await store.appendAudit([auditEvent({ subject_id: subjectId() })]);
    if (segments(path(store)).some((n) => n > 0)) return appended;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the mover thread never moved');
}

const paths = new WeakMap<Store, string>();
const path = (store: Store) => paths.get(store) as string;

async function open(file: string): Promise<Store> {
  const store = await openSqliteStore(file, { auditMover: { after: 0, atLeast: 0 } });
  paths.set(store, file);
  return store;
}

describe('the audit journal moved on a thread', () => {
  it('keeps the order of the appends while appends go on during moves, a transaction’s events included', () =>
    withFile(async (file) => {
      const store = await open(file);
      const subject = subjectId();
      try {
        const appended = await untilTheThreadMoves(store, subject);
        // Appends in many turns, moves asked for in the middle of them (not waited for), and a
        // write transaction that appends its own event after them.
        const pending: Promise<unknown>[] = [];
        for (let turn = 0; turn < 40; turn++) {
          const batch = [auditEvent({ subject_id: subject }), auditEvent({ subject_id: subject })];
          appended.push(...batch);
          pending.push(store.appendAudit(batch));
          if (turn % 7 === 3) pending.push(store.listAudit({ subject_id: subject, limit: 1 }));
          await new Promise((resolve) => setImmediate(resolve));
        }
        // A transaction's event is appended when its turn comes: after every append made before.
        const inTransaction = auditEvent({ subject_id: subject });
        appended.push(inTransaction);
        await store.transaction((tx) => tx.appendAudit([inTransaction]));
        const after = auditEvent({ subject_id: subject });
        appended.push(after);
        pending.push(store.appendAudit([after]));
        await Promise.all(pending);
        assert.deepEqual(
          (await subjectAuditLog(store, subject)).map((e) => e.event_id),
          appended.map((e) => e.event_id),
        );
        assert.deepEqual((await subjectAuditLog(store, subject)).at(-1), after);
      } finally {
        await store.close();
      }
      assert.deepEqual(readdirSync(`${file}-audit`), [], 'closed: every segment moved and removed');
      const again = await openSqliteStore(file);
      try {
        const ids = (await subjectAuditLog(again, subject)).map((e) => e.event_id);
        assert.equal(new Set(ids).size, ids.length, 'nothing moved twice');
      } finally {
        await again.close();
      }
    }));

  it('refuses an id already waiting or moving, as before', () =>
    withFile(async (file) => {
      const store = await open(file);
      try {
        const subject = subjectId();
        await untilTheThreadMoves(store, subject);
        const event = auditEvent({ subject_id: subject });
        await store.appendAudit([event]);
        const moving = store.listAudit({ subject_id: subject, limit: 1 });
        await assert.rejects(store.appendAudit([event]), /already in the log/);
        await moving;
        await assert.rejects(store.appendAudit([event]), /already in the log/);
      } finally {
        await store.close();
      }
    }));

  it('loses and repeats nothing when the process is killed in the middle of moves', () =>
    withFile(async (file) => {
      await (await openSqliteStore(file)).close();
      const subject = subjectId();
      const { acknowledged, lastSegment } = await appendMovingThenDie(file, subject);
      assert.ok(acknowledged.length >= 300, `${acknowledged.length} events acknowledged`);
      assert.ok(
        lastSegment > 0,
        `the killed process had moved on its thread (a file past the first): ${lastSegment}`,
      );
      const store = await openSqliteStore(file);
      try {
        const listed = (await subjectAuditLog(store, subject)).map((e) => e.event_id);
        // Every acknowledged event once, in the order appended; an event appended in the killed
        // turn may or may not be there (its append never settled), never twice.
        assert.deepEqual(listed.slice(0, acknowledged.length), acknowledged);
        assert.equal(new Set(listed).size, listed.length);
      } finally {
        await store.close();
      }
      assert.deepEqual(readdirSync(`${file}-audit`), []);
    }));

  it('keeps a move of fewer events than it hands over on the event loop, once the thread runs', () =>
    withFile(async (file) => {
      const store = await openSqliteStore(file, { auditMover: { after: 0, atLeast: 5 } });
      const subject = subjectId();
      const five = () => Array.from({ length: 5 }, () => auditEvent({ subject_id: subject }));
      /** Appends `events`, moves them, and appends one more: the number of the file it went to. */
      const moveThenAppend = async (events: AuditEvent[]) => {
        await store.appendAudit(events);
        await store.listAudit({ subject_id: subject, limit: 1 });
        await store.appendAudit([auditEvent({ subject_id: subject })]);
        return segments(file);
      };
      try {
        let moved = false;
        for (let i = 0; i < 200 && !moved; i++) {
          moved = (await moveThenAppend(five())).some((n) => n > 0);
          if (!moved) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.ok(moved, 'a move of five went through the thread');
        const [written] = segments(file);
        // Two events (the one left waiting above and one more): emptied in place, on the event loop.
        assert.deepEqual(await moveThenAppend([auditEvent({ subject_id: subject })]), [written]);
        // Five and more: the file is handed over, and the next append starts another.
        assert.deepEqual(await moveThenAppend(five()), [(written as number) + 1]);
      } finally {
        await store.close();
      }
    }));

  for (const closes of [false, true]) {
    it(`lets a process whose store's threads run end on its own, ${closes ? 'closing' : 'not closing'} its store`, () =>
      withFile(async (file) => {
        const { code, signal, out } = await runModuleChild(`
          ${SQLITE_STORE_IMPORT}
          const store = await openSqliteStore(${JSON.stringify(file)}, { auditMover: { after: 0, atLeast: 0 } });
          const event = (i) => ({ event_id: 'ppx:event:end-' + i, at: new Date().toISOString(),
            subject_id: 'did:example:end', actor: { kind: 'grantee', id: 'client_perfumery' },
            action: 'read', claim_keys: ['novelty_tolerance'], outcome: 'ok' });
          // Past 500 commits the checkpoints have a thread; past the first moves, the journal.
          for (let i = 0; i < 600; i++) await store.transaction((tx) => tx.appendAudit([event(i)]));
          for (let i = 600; i < 700; i++) {
            await store.appendAudit([event(i)]);
            await store.listAudit({ subject_id: 'did:example:end', limit: 1 });
          }
          ${closes ? 'await store.close();' : ''}
          process.stdout.write('done\\n');
        `);
        assert.equal(signal, null, `the child had to be killed: ${out}`);
        assert.equal(code, 0, out);
        assert.match(out, /done/);
      }));
  }
});

/**
 * A child process whose journal moves on the thread, appending for `subject` in many turns with
 * moves asked for in between, killed (SIGKILL) with a move under way and appends unwritten. Resolves
 * to the ids whose appends had settled, in order, and the highest journal file number it saw.
 */
async function appendMovingThenDie(
  file: string,
  subject: string,
): Promise<{ acknowledged: string[]; lastSegment: number }> {
  const { code, signal, out } = await runModuleChild(`
    ${SQLITE_STORE_IMPORT}
    import { readdirSync } from 'node:fs';
    const store = await openSqliteStore(${JSON.stringify(file)}, { auditMover: { after: 0, atLeast: 0 } });
    const event = (i) => ({ event_id: 'ppx:event:moved-' + String(i).padStart(5, '0'),
      at: new Date(Date.UTC(2026, 2, 1, 10, 0, 0, i)).toISOString(),
      subject_id: ${JSON.stringify(subject)}, actor: { kind: 'grantee', id: 'client_perfumery' },
      action: 'read', claim_keys: ['novelty_tolerance'], outcome: 'ok' });
    let i = 0;
    for (let turn = 0; turn < 150; turn++) {
      const batch = [event(i++), event(i++), event(i++)];
      await store.appendAudit(batch);
      for (const e of batch) process.stdout.write(e.event_id + '\\n');
      if (turn % 10 === 9) void store.listAudit({ subject_id: ${JSON.stringify(subject)}, limit: 1 });
      for (const name of readdirSync(${JSON.stringify(`${file}-audit`)})) process.stdout.write('file ' + name + '\\n');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // A move under way, and appends not yet written, when the kill comes.
    void store.listAudit({ subject_id: ${JSON.stringify(subject)}, limit: 1 });
    void store.appendAudit([event(i++)]);
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1);
  `);
  if (signal !== 'SIGKILL')
    throw new Error(`child ended with ${code} instead of being killed: ${out.slice(-500)}`);
  const lines = out.split('\n').filter((line) => line !== '');
  const numbers = lines
    .filter((l) => l.startsWith('file '))
    .map((l) => Number(/-(\d+)\.jsonl$/.exec(l)?.[1] ?? -1));
  const acknowledged = lines.filter((l) => l.startsWith('ppx:event:'));
  return { acknowledged, lastSegment: Math.max(-1, ...numbers) };
}
