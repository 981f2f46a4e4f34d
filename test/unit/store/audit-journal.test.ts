import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type AuditEvent, mintedEvent } from '../../../src/model/audit-event.ts';
import { AuditJournal, type JournalSink } from '../../../src/store/sqlite/audit-journal.ts';
import { eventsOfLines, lineOf } from '../../../src/store/sqlite/journal-lines.ts';
import { auditEvent } from '../../support/store-records.ts';

// The audit journal's own rules, over a sink that fails when told to: what cannot be moved stays,
// is moved by a later try, and past a bound an append fails instead of memory growing.

function failingSink(): JournalSink & { failing: boolean; written: AuditEvent[] } {
  const sink = {
    failing: true,
    written: [] as AuditEvent[],
    exclusive: async (move: () => void) => move(),
    writeAll(events: readonly AuditEvent[]) {
      if (sink.failing) throw new Error('disk full');
      sink.written.push(...events);
    },
    writeEach(): unknown[] {
      throw new Error('disk full');
    },
    has: () => false,
  };
  return sink;
}

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ppx-journal-unit-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('AuditJournal', () => {
  it('keeps what could not be moved, and moves it once the database takes it', () =>
    withDir(async (dir) => {
      const sink = failingSink();
      const journal = new AuditJournal(join(dir, 'audit'), sink);
      const events = [auditEvent(), auditEvent()];
      journal.append(events);
      await journal.flush();
      assert.equal(journal.waiting, 2, 'a failed move keeps both');
      sink.failing = false;
      await journal.flush();
      assert.equal(journal.waiting, 0);
      assert.deepEqual(sink.written, events);
      journal.close();
      assert.deepEqual(await readdir(join(dir, 'audit')), [], 'closed with nothing waiting: no file left');
    }));

  it('refuses appends past its bound while moves fail, instead of growing', () =>
    withDir(async (dir) => {
      const sink = failingSink();
      const journal = new AuditJournal(join(dir, 'audit'), sink);
      const batch = Array.from({ length: 1000 }, () => auditEvent());
      // Ids need not differ for the bound: `has` says none is in the log, the journal checks its own.
      for (let i = 0; i < 100; i++)
        journal.append(batch.map((e) => ({ ...e, event_id: `${e.event_id}-${i}` })));
      assert.equal(journal.waiting, 100_000);
      assert.throws(() => journal.append([auditEvent()]), /cannot be written/);
      sink.failing = false;
      await journal.flush();
      assert.equal(journal.waiting, 0);
      journal.append([auditEvent()]);
      journal.close();
    }));

  it('refuses an id already waiting, writing none of that append', () =>
    withDir(async (dir) => {
      const journal = new AuditJournal(join(dir, 'audit'), failingSink());
      const first = auditEvent();
      journal.append([first]);
      assert.throws(() => journal.append([auditEvent(), first]), /already in the log/);
      assert.equal(journal.waiting, 1);
      // Closed with a move failing: the journal stays for the next opener, and nothing retries.
      journal.close();
      assert.equal((await readdir(join(dir, 'audit'))).length, 1);
    }));

  it('looks an id up in the database unless the event was minted for this append, and only for its first', () =>
    withDir(async (dir) => {
      const looked: string[] = [];
      let inDatabase = (_id: string) => false;
      const base = failingSink();
      base.failing = false;
      const sink = {
        ...base,
        has: (id: string) => {
          looked.push(id);
          return inDatabase(id);
        },
      };
      const journal = new AuditJournal(join(dir, 'audit'), sink);
      const given = auditEvent();
      const minted = mintedEvent(auditEvent());
      journal.append([given, minted]);
      assert.deepEqual(looked, [given.event_id], 'the minted event is not looked up');
      await journal.flush();
      assert.equal(journal.waiting, 0);
      assert.deepEqual(base.written, [given, minted]);
      // Moved, so no longer waiting: appended again, the same event is looked up, and refused.
      inDatabase = (id) => id === minted.event_id;
      assert.throws(() => journal.append([minted]), /already in the log/);
      assert.deepEqual(looked, [given.event_id, minted.event_id]);
      journal.close();
    }));

  it('writes the appends of one turn together, and settles each once its line is in the file', () =>
    withDir(async (dir) => {
      const journal = new AuditJournal(join(dir, 'audit'), failingSink());
      const events = [auditEvent(), auditEvent(), auditEvent()];
      const settled = events.map((e) => journal.append([e]));
      // Synchronously, so still within the turn: no file yet (it is made at the first write).
      assert.equal(existsSync(join(dir, 'audit')), false, 'nothing written within the turn');
      await Promise.all(settled);
      const [file] = await readdir(join(dir, 'audit'));
      const lines = (await readFile(join(dir, 'audit', file!), 'utf8')).trim().split('\n');
      assert.deepEqual(
        lines.map((l) => JSON.parse(l).event_id),
        events.map((e) => e.event_id),
      );
      assert.equal(journal.waiting, 3);
      journal.close();
    }));

  it('writes each event as one line of its JSON, a shared key list included', () => {
    const keys = Object.freeze(['core.novelty', 'fragrance.families']);
    const events: AuditEvent[] = [
      auditEvent({ claim_keys: keys as string[] }),
      auditEvent({ claim_keys: keys as string[], grant_id: 'ppx:grant:g1', detail: 'a "quoted"\nline' }),
      auditEvent({ claim_keys: [] }),
    ];
    for (const event of events) {
      const line = lineOf(event);
      assert.equal(line.endsWith('\n'), true);
      assert.equal(line.indexOf('\n'), line.length - 1, 'one line');
      assert.deepEqual(JSON.parse(line), JSON.parse(JSON.stringify(event)));
    }
  });
});

describe('eventsOfLines', () => {
  it('reads back what lineOf wrote, sharing one key list per text, and skips a line cut short', () => {
    const keys = Object.freeze(['novelty_tolerance', 'fragrance.family_preference']);
    const first = auditEvent({ claim_keys: keys as string[] });
    const second = auditEvent({ claim_keys: keys as string[], detail: 'a "quoted" ,"claim_keys": detail' });
    const cut = lineOf(auditEvent()).slice(0, 40);
    const events = eventsOfLines(`${lineOf(first)}${cut}\n${lineOf(second)}{"not":"an event"}\n`);
    assert.deepEqual(events, [first, second]);
    assert.equal(events[0]?.claim_keys, events[1]?.claim_keys, 'one list for one text');
  });
});
