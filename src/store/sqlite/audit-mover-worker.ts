import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { auditQueries } from './audit-queries.ts';
import { configure } from './connection-settings.ts';
import { eventsOfLines, type JournalPart, removeJournalFile, textOfParts } from './journal-lines.ts';
import { StatementCache } from './statement-cache.ts';

// The worker thread of audit-mover.ts: appends the events of the audit journal's files it is sent
// (closed, oldest first, each from the byte its waiting events begin at) to one database file on
// its own connection, one transaction per message, the same statements as the store's own
// (audit-queries.ts), and then removes the files. Answers
// { id, ok }: ok once committed; not ok when nothing was (rolled back), and the journal moves them
// itself. Stops (closing its connection) on 'stop'.

const { path } = workerData as { path: string };
const db = new DatabaseSync(path);
// As the store's writer. The store's write mutex is held for the move, so only another process (a
// `ppx` command) or the checkpoint thread's RESTART can hold the lock: waiting for it (busy_timeout)
// stops no request. Its commits checkpoint as SQLite's default has it, on this thread: a store read
// and not written commits on no other connection.
configure(db);
const audit = auditQueries(new StatementCache(db));
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');

parentPort?.on('message', (message: { id: number; parts: readonly JournalPart[] } | 'stop') => {
  if (message === 'stop') {
    db.close();
    parentPort?.close();
    return;
  }
  let ok = false;
  try {
    const events = eventsOfLines(textOfParts(message.parts));
    begin.run();
    audit.appendAudit(events);
    commit.run();
    ok = true;
  } catch {
    if (db.isTransaction) db.exec('ROLLBACK');
    // A rollback may take back a key list this connection stored.
    audit.forgetKeySets();
  }
  // Committed: the files go. One that cannot be removed is read again by the next store opened on
  // the database, every event of it skipped as logged.
  if (ok) for (const part of message.parts) removeJournalFile(part.file);
  parentPort?.postMessage({ id: message.id, ok });
});
parentPort?.postMessage('ready');
