import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { at, auditEvent, subjectId } from '../support/store-records.ts';

// A store remembers which claim-key lists it stored (sqlite/audit-queries.ts): it must forget them
// when a rollback takes one back, and when another process prunes lists.

async function withFile(body: (path: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ppx-audit-keys-'));
  try {
    await body(join(dir, 'ppx.db'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('audit key lists a store remembers', () => {
  it('are forgotten when a rollback takes one back', () =>
    withFile(async (path) => {
      const store = await openSqliteStore(path);
      try {
        const subject = subjectId();
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.appendAudit([auditEvent({ subject_id: subject, claim_keys: ['fresh'] })]);
            throw new Error('undo');
          }),
        );
        const event = auditEvent({ subject_id: subject, claim_keys: ['fresh'] });
        await store.appendAudit([event]);
        assert.deepEqual((await store.listAudit({ subject_id: subject, limit: 5 })).events, [event]);
      } finally {
        await store.close();
      }
    }));

  it('are forgotten when another process prunes them', () =>
    withFile(async (path) => {
      const serving = await openSqliteStore(path);
      const operator = await openSqliteStore(path);
      try {
        const subject = subjectId();
        await serving.appendAudit([auditEvent({ subject_id: subject, claim_keys: ['k'], at: at(0) })]);
        // The serving store's journal reaches the file by a commit of its own (audit-journal.ts);
        // its next write moves it at once.
        await serving.transaction(async () => undefined);
        await operator.transaction(async (tx) => {
          assert.equal(await tx.pruneAudit(at(1), 100), 1);
          assert.equal(await tx.pruneAuditKeySets(), 1);
        });
        const later = auditEvent({ subject_id: subject, claim_keys: ['k'], at: at(2) });
        await serving.appendAudit([later]);
        await serving.transaction(async () => undefined);
        assert.deepEqual((await operator.listAudit({ subject_id: subject, limit: 5 })).events, [later]);
      } finally {
        await operator.close();
        await serving.close();
      }
    }));
});
