import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../src/model/audit-event.ts';
import { listMigrations } from '../../src/store/sqlite/migrate.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { at, auditEvent, refreshToken, subjectId, tokenFamily } from '../support/store-records.ts';

// Migration 0011 carries a log written in the old shape (one JSON body per event) over to the
// compact one without losing or reordering an event, and keeps refresh tokens exchangeable.

/** A database at migration 0010, as a store of the first stage left it. */
function oldDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)');
  for (const { version, file } of listMigrations().filter((m) => m.version <= 10)) {
    db.exec(readFileSync(new URL(`../../src/store/sqlite/migrations/${file}`, import.meta.url), 'utf8'));
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(version, new Date().toISOString());
  }
  return db;
}

describe('migration 0011 (the compact audit log)', () => {
  it('keeps every event, in order, with its keys, times and filters', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ppx-audit-migration-'));
    try {
      const path = join(dir, 'old.db');
      const db = oldDatabase(path);
      const subject = subjectId();
      const events: AuditEvent[] = [0, 3, 1, 7, 2].map((m, i) =>
        auditEvent({
          subject_id: subject,
          at: at(m),
          claim_keys: i === 4 ? [] : ['a', i % 2 === 0 ? 'b' : 'c'],
          action: i === 3 ? 'export' : 'read',
          ...(i === 1 ? { outcome: 'denied' as const, detail: 'namespace travel is not granted' } : {}),
        }),
      );
      const insert = db.prepare(
        `INSERT INTO audit_events (event_id, subject_id, grant_id, actor_id, action, at, at_ms, body)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const e of events) {
        insert.run(
          e.event_id,
          e.subject_id,
          e.grant_id ?? null,
          e.actor.id,
          e.action,
          e.at,
          Date.parse(e.at),
          JSON.stringify(e),
        );
      }
      const family = tokenFamily({ subject_id: subject });
      const token = refreshToken({ family_id: family.family_id });
      db.prepare(
        'INSERT INTO token_families (family_id, client_id, subject_id, status, body) VALUES (?, ?, ?, ?, ?)',
      ).run(family.family_id, family.client_id, family.subject_id, family.status, JSON.stringify(family));
      db.prepare('INSERT INTO refresh_tokens (token_hash, family_id, status, body) VALUES (?, ?, ?, ?)').run(
        token.token_hash,
        token.family_id,
        token.status,
        JSON.stringify(token),
      );
      db.close();

      const store = await openSqliteStore(path);
      try {
        assert.deepEqual((await store.listAudit({ subject_id: subject, limit: 50 })).events, events);
        assert.deepEqual(
          (await store.listAudit({ subject_id: subject, limit: 50, action: 'export' })).events,
          [events[3]],
        );
        assert.deepEqual((await store.listAudit({ subject_id: subject, limit: 50, since: at(2) })).events, [
          events[1],
          events[3],
          events[4],
        ]);
        assert.deepEqual((await store.getRefreshToken(token.token_hash))?.expires_at, token.expires_at);
        // The expiry the migration copied out of the body is what pruning reads.
        assert.equal(await store.pruneRefreshTokens(token.expires_at), 1);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
