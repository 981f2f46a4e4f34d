import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { subjectAuditLog } from '../support/audit.ts';
import { runModuleChild, SQLITE_STORE_IMPORT, withSqliteFile } from '../support/sqlite-file.ts';
import { at, auditEvent, minimalClaim, profileRecord, subjectId } from '../support/store-records.ts';

// The audit journal of a SQLite file (src/store/sqlite/audit-journal.ts, issue 27 item 3): an
// append is in the log when it returns, whether or not it has reached the database yet; a process
// killed with events still in its journal loses none of them; a journal is read once.

const withFile = (body: (path: string) => Promise<void>) => withSqliteFile('audit-journal', body);

/**
 * A child process that appends `count` events for `subject` and is killed before it can move them;
 * with `movedFirst`, the first that many are moved into the database (a listing) before the rest
 * are appended, to the same journal file.
 */
async function appendThenDie(path: string, subject: string, count: number, movedFirst = 0): Promise<void> {
  const { code, signal, out } = await runModuleChild(`
    ${SQLITE_STORE_IMPORT}
    const store = await openSqliteStore(${JSON.stringify(path)});
    for (let i = 0; i < ${count}; i++) {
      if (i === ${movedFirst} && i > 0) await store.listAudit({ subject_id: 'did:example:none', limit: 1 });
      await store.appendAudit([{ event_id: 'ppx:event:killed-' + i, at: new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString(),
        subject_id: ${JSON.stringify(subject)}, actor: { kind: 'grantee', id: 'client_perfumery' },
        action: 'read', claim_keys: ['novelty_tolerance'], outcome: 'ok' }]);
    }
    process.stdout.write('appended\\n');
    process.kill(process.pid, 'SIGKILL');
  `);
  if (!out.includes('appended') || signal !== 'SIGKILL')
    throw new Error(`child ended with ${signal ?? code} before appending: ${out}`);
}

/** The ids appendThenDie gives its first `count` events. */
const killedIds = (count: number) => Array.from({ length: count }, (_, i) => `ppx:event:killed-${i}`);

/** The ids of `subject`'s events (ten at most), as a store opened on the file lists them (recovery first). */
async function idsOnOpening(path: string, subject: string): Promise<string[]> {
  const store = await openSqliteStore(path);
  try {
    return (await store.listAudit({ subject_id: subject, limit: 10 })).events.map((e) => e.event_id);
  } finally {
    await store.close();
  }
}

describe('the audit journal of a SQLite file', () => {
  it('lists an event as soon as it is appended, and moves the journal into the file', () =>
    withFile(async (path) => {
      const store = await openSqliteStore(path);
      try {
        const subject = subjectId();
        const event = auditEvent({ subject_id: subject });
        await store.appendAudit([event]);
        assert.deepEqual((await store.listAudit({ subject_id: subject, limit: 5 })).events, [event]);
      } finally {
        await store.close();
      }
      // Closed: moved, and the journal file gone.
      assert.deepEqual(readdirSync(`${path}-audit`), []);
    }));

  it('loses nothing appended by a process that was killed, and reads its journal once', () =>
    withFile(async (path) => {
      const subject = subjectId();
      await (await openSqliteStore(path)).close();
      await appendThenDie(path, subject, 5);
      assert.equal(readdirSync(`${path}-audit`).length, 1, 'the killed process left its journal');
      assert.deepEqual(await idsOnOpening(path, subject), killedIds(5));
      assert.deepEqual(readdirSync(`${path}-audit`), []);
      assert.equal((await idsOnOpening(path, subject)).length, 5);
    }));

  it('skips what a dead process had already committed, a cut line and a line that is no event', () =>
    withFile(async (path) => {
      const subject = subjectId();
      const committed = auditEvent({ subject_id: subject, at: at(0) });
      const waiting = auditEvent({ subject_id: subject, at: at(1) });
      const first = await openSqliteStore(path);
      await first.appendAudit([committed]);
      await first.close();
      // A journal of a process that is gone (pid 2^22 + 1 is above Linux's pid limit): the
      // committed event again (killed between its commit and emptying the journal), one waiting,
      // a line that is not an audit event, and a last line cut short.
      mkdirSync(`${path}-audit`, { recursive: true });
      const lines = [
        JSON.stringify(committed),
        JSON.stringify(waiting),
        '{"event_id":"x"}',
        '{"event_id":"ppx:ev',
      ];
      writeFileSync(join(`${path}-audit`, '4194305-1-deadbeef.jsonl'), lines.join('\n'));
      const store = await openSqliteStore(path);
      try {
        assert.deepEqual((await store.listAudit({ subject_id: subject, limit: 10 })).events, [
          committed,
          waiting,
        ]);
      } finally {
        await store.close();
      }
    }));

  it('writes on in the file a move emptied into the log, and a killed process loses and repeats none of it', () =>
    withFile(async (path) => {
      const subject = subjectId();
      await (await openSqliteStore(path)).close();
      // Three events moved by a listing, then four more appended to the same file, then killed.
      await appendThenDie(path, subject, 7, 3);
      const files = readdirSync(`${path}-audit`);
      assert.equal(files.length, 1, 'one journal file, kept after the move');
      assert.equal(
        readFileSync(join(`${path}-audit`, files[0]!), 'utf8')
          .trim()
          .split('\n').length,
        7,
      );
      assert.deepEqual(await idsOnOpening(path, subject), killedIds(7));
      assert.deepEqual(readdirSync(`${path}-audit`), []);
    }));

  it('moves only what was appended since the last move, and starts a new file once one is long', () =>
    withFile(async (path) => {
      const subject = subjectId();
      const store = await openSqliteStore(path);
      try {
        const listed = async () => (await subjectAuditLog(store, subject)).map((e) => e.event_id).sort();
        const appended: string[] = [];
        const append = async (n: number) => {
          const events = Array.from({ length: n }, () => auditEvent({ subject_id: subject }));
          await store.appendAudit(events);
          appended.push(...events.map((e) => e.event_id));
        };
        await append(2);
        assert.equal((await listed()).length, 2);
        const [file] = readdirSync(`${path}-audit`);
        await append(3);
        assert.deepEqual(readdirSync(`${path}-audit`), [file], 'the same file, written on');
        assert.deepEqual(await listed(), [...appended].sort());
        // Past ROLL_AT_BYTES (1 MiB; an event's line is a few hundred bytes), a move removes the file.
        while (statSync(join(`${path}-audit`, file!)).size <= 2 ** 20) await append(500);
        assert.deepEqual(await listed(), [...appended].sort());
        assert.deepEqual(readdirSync(`${path}-audit`), []);
        await append(1);
        const [next] = readdirSync(`${path}-audit`);
        assert.ok(next !== undefined && next !== file, 'a new file');
        assert.deepEqual(await listed(), [...appended].sort());
      } finally {
        await store.close();
      }
    }));

  it('moves its journal before a transaction that may append, and not before one whose scope says unaudited', (t) =>
    withFile(async (path) => {
      const store = await openSqliteStore(path);
      const file = new DatabaseSync(path, { readOnly: true });
      const logged = () => Number(file.prepare('SELECT count(*) AS n FROM audit_events').get()?.['n']);
      // The journal's own move, 50 ms after an append, is held back: only the transactions move it.
      t.mock.timers.enable({ apis: ['setTimeout'] });
      try {
        const profile = profileRecord();
        const subject = profile.subject_id;
        await store.appendAudit([auditEvent({ subject_id: subject })]);
        await store.transaction((tx) => tx.insertProfile(profile), { subject, unaudited: true });
        assert.equal(logged(), 0, 'still in the journal');
        await store.transaction((tx) => tx.putClaims(profile.profile_id, [minimalClaim()]), { subject });
        assert.equal(logged(), 1, 'moved before the transaction');
      } finally {
        t.mock.timers.reset();
        file.close();
        await store.close();
      }
    }));

  it("leaves a live process's journal alone", () =>
    withFile(async (path) => {
      const subject = subjectId();
      const serving = await openSqliteStore(path);
      try {
        await serving.appendAudit([auditEvent({ subject_id: subject })]);
        const [journal] = readdirSync(`${path}-audit`);
        // Another store opening the file (a `ppx` command beside the server) does not take it.
        await (await openSqliteStore(path)).close();
        assert.ok(existsSync(join(`${path}-audit`, journal!)));
        assert.equal((await serving.listAudit({ subject_id: subject, limit: 5 })).events.length, 1);
      } finally {
        await serving.close();
      }
    }));
});
