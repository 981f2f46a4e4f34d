import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { AuditEvent } from '../../src/model/audit-event.ts';
import { Claim, claimShape } from '../../src/model/claim.ts';
import { ConsentGrant } from '../../src/model/consent-grant.ts';
import { ContextModifier } from '../../src/model/context-modifier.ts';
import { listMigrations } from '../../src/store/sqlite/migrate.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { IdConflictError } from '../../src/store/store.ts';
import { nextMillisecond } from '../support/clock.ts';
import {
  auditEvent,
  fullClaim,
  fullGrant,
  gate,
  grant,
  grantRequest,
  minimalClaim,
  modifier,
  profileRecord,
  refreshChain,
  refreshToken,
  tokenFamily,
  withStore,
} from '../support/store-records.ts';
import { runStoreContract } from './contract.ts';

let dir = '';
let files = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ppx-sqlite-store-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A path for a new database file in the suite's temp dir. */
function freshPath(): string {
  files += 1;
  return join(dir, `store-${files}.db`);
}

runStoreContract('sqlite :memory:', () => openSqliteStore(':memory:'));
runStoreContract('sqlite file', () => openSqliteStore(freshPath()), {
  sameDatabase: () => {
    const path = freshPath();
    return () => openSqliteStore(path);
  },
});

describe('fixtures', () => {
  it('are valid per the model schemas', () => {
    const { profile_id: _p, access_mode: _a, ...published } = fullGrant();
    ConsentGrant.parse(published);
    const { profile_id: _q, access_mode: _b, ...bare } = grant();
    ConsentGrant.parse(bare);
    Claim.parse(minimalClaim());
    Claim.parse(fullClaim());
    ContextModifier.parse(modifier());
    AuditEvent.parse(auditEvent());
  });
});

describe('sqlite store', () => {
  it('puts a file database in WAL mode with foreign keys on', async () => {
    const path = freshPath();
    const store = await openSqliteStore(path);
    const raw = new DatabaseSync(path);
    try {
      assert.equal(raw.prepare('PRAGMA journal_mode').get()?.['journal_mode'], 'wal');
    } finally {
      raw.close();
      await store.close();
    }
  });

  it('records migrations and does not re-apply them when the file is reopened', async () => {
    const path = freshPath();
    await (await openSqliteStore(path)).close();
    const migrations = () => {
      const raw = new DatabaseSync(path, { readOnly: true });
      try {
        return raw.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all();
      } finally {
        raw.close();
      }
    };
    const first = migrations();
    assert.deepEqual(
      first.map((row) => row['version']),
      listMigrations().map((m) => m.version),
    );
    await nextMillisecond();
    const store = await openSqliteStore(path);
    await store.insertProfile(profileRecord());
    await store.close();
    assert.deepEqual(migrations(), first);
  });

  it('keeps data across close and reopen', async () => {
    const path = freshPath();
    const profile = profileRecord({ default_policy: { retention_days: 90 } });
    const claim = fullClaim();
    const g = fullGrant({ subject_id: profile.subject_id, profile_id: profile.profile_id });
    const event = auditEvent({ subject_id: profile.subject_id, grant_id: g.grant_id });
    const first = await openSqliteStore(path);
    await first.transaction(async (tx) => {
      await tx.insertProfile(profile);
      await tx.putClaims(profile.profile_id, [claim]);
      await tx.insertGrant(g);
      await tx.appendAudit([event]);
    });
    await first.putSettingIfAbsent('pairwise_secret', 's3cret');
    await first.close();

    const second = await openSqliteStore(path);
    try {
      assert.deepEqual(await second.getProfileBySubject(profile.subject_id), profile);
      assert.deepEqual(await second.listClaims(profile.profile_id), [claim]);
      assert.deepEqual(await second.getGrant(g.grant_id), g);
      assert.deepEqual((await second.listAudit({ subject_id: profile.subject_id, limit: 5 })).events, [
        event,
      ]);
      assert.equal(await second.putSettingIfAbsent('pairwise_secret', 'other'), 's3cret');
    } finally {
      await second.close();
    }
  });

  it('refuses UPDATE and DELETE on audit_events at the database level', async () => {
    const path = freshPath();
    const store = await openSqliteStore(path);
    const event = auditEvent();
    await store.appendAudit([event]);
    await store.close();
    const raw = new DatabaseSync(path);
    try {
      assert.throws(() => raw.exec(`UPDATE audit_events SET action = 'export'`), /append-only/);
      assert.throws(() => raw.exec('DELETE FROM audit_events'), /append-only/);
      assert.equal(raw.prepare('SELECT count(*) AS n FROM audit_events').get()?.['n'], 1);
    } finally {
      raw.close();
    }
    const reopened = await openSqliteStore(path);
    try {
      assert.deepEqual((await reopened.listAudit({ subject_id: event.subject_id, limit: 5 })).events, [
        event,
      ]);
    } finally {
      await reopened.close();
    }
  });

  it('does not show an open transaction’s writes to reads outside it (file database)', async () => {
    const store = await openSqliteStore(freshPath());
    try {
      const profile = profileRecord();
      const held = gate();
      const wrote = gate();
      const tx = store.transaction(async (t) => {
        await t.insertProfile(profile);
        await t.putSettingIfAbsent('draft', 'uncommitted');
        wrote.open();
        await held.wait;
      });
      await wrote.wait;
      assert.equal(await store.getProfile(profile.profile_id), undefined);
      assert.equal(await store.getSetting('draft'), undefined);
      assert.equal(await store.countProfiles(), 0);
      held.open();
      await tx;
      assert.deepEqual(await store.getProfile(profile.profile_id), profile);
      assert.equal(await store.getSetting('draft'), 'uncommitted');
    } finally {
      await store.close();
    }
  });

  it(
    'rejects (instead of deadlocking) a store write or nested transaction issued inside a transaction',
    withStore(
      () => openSqliteStore(':memory:'),
      async (store) => {
        await store.transaction(async () => {
          await assert.rejects(store.insertProfile(profileRecord()), /use the tx argument/);
          // On :memory: the outbox is read between transactions only: from inside one it would wait.
          await assert.rejects(store.listChanges({ after: 0, limit: 1 }), /use the tx argument/);
          await assert.rejects(
            store.transaction(async () => undefined),
            /use the tx argument/,
          );
        });
        assert.equal(await store.countProfiles(), 0);
      },
    ),
  );

  it('rejects a claim id that belongs to another profile', async () => {
    await withStore(
      () => openSqliteStore(':memory:'),
      async (store) => {
        const [a, b] = [profileRecord(), profileRecord()];
        await store.insertProfile(a);
        await store.insertProfile(b);
        const claim = minimalClaim();
        await store.putClaims(a.profile_id, [claim]);
        await assert.rejects(
          store.putClaims(b.profile_id, [{ ...claim, value: 0 }]),
          (e: unknown) => e instanceof IdConflictError && e.id === claim.claim_id,
        );
        assert.deepEqual(await store.listClaims(a.profile_id), [claim]);
        assert.deepEqual(await store.listClaims(b.profile_id), []);
      },
    )();
  });

  it('keeps the status columns the compare-and-set writes test in step with the JSON bodies', async () => {
    const path = freshPath();
    const store = await openSqliteStore(path);
    const request = grantRequest();
    const family = tokenFamily();
    const old = refreshToken({ family_id: family.family_id });
    try {
      await store.insertGrantRequest(request);
      await store.transitionGrantRequest(request.grant_request_id, 'pending', { status: 'approved' });
      await store.insertTokenFamily(family);
      await store.insertRefreshToken(old);
      await store.rotateRefreshToken(old.token_hash, refreshChain({ family_id: family.family_id }));
      await store.revokeTokenFamily(family.family_id, '2026-03-01T10:00:00.000Z');
    } finally {
      await store.close();
    }
    const raw = new DatabaseSync(path, { readOnly: true });
    try {
      for (const table of ['grant_requests', 'token_families', 'refresh_tokens']) {
        const rows = raw.prepare(`SELECT status, body ->> '$.status' AS body_status FROM ${table}`).all();
        assert.ok(rows.length > 0, table);
        for (const row of rows) assert.equal(row['status'], row['body_status'], table);
      }
      const statuses = (table: string) =>
        raw
          .prepare(`SELECT status FROM ${table} ORDER BY status`)
          .all()
          .map((row) => row['status']);
      assert.deepEqual(statuses('grant_requests'), ['approved']);
      assert.deepEqual(statuses('token_families'), ['revoked']);
      // The rotation started the family's chain (refresh_chains): the token kept as a row is spent.
      assert.deepEqual(statuses('refresh_tokens'), ['rotated']);
    } finally {
      raw.close();
    }
  });

  it('migration 0010 gives each stored claim its shape at its namespace’s last change, and drops namespace_changes', async () => {
    const path = freshPath();
    const raw = new DatabaseSync(path);
    const profile = profileRecord({ updated_at: '2026-02-01T00:00:00.000Z' });
    const core = minimalClaim({ applicability: { domains: ['travel'] } });
    const fragrance = fullClaim({ review: { review_status: 'rejected' } });
    try {
      raw.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)');
      for (const { version, file } of listMigrations().filter((m) => m.version < 10)) {
        raw.exec(readFileSync(new URL(`../../src/store/sqlite/migrations/${file}`, import.meta.url), 'utf8'));
        raw.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, 'then');
      }
      raw
        .prepare('INSERT INTO profiles (profile_id, subject_id, created_at, updated_at) VALUES (?, ?, ?, ?)')
        .run(profile.profile_id, profile.subject_id, profile.created_at, profile.updated_at);
      const insert = raw.prepare(
        'INSERT INTO claims (claim_id, profile_id, namespace, key, body) VALUES (?, ?, ?, ?, ?)',
      );
      for (const c of [core, fragrance])
        insert.run(c.claim_id, profile.profile_id, c.namespace, c.key, JSON.stringify(c));
      raw
        .prepare('UPDATE namespace_changes SET changed_at = ? WHERE namespace = ?')
        .run('2026-03-01T10:00:00.000Z', 'core');
      raw.prepare('DELETE FROM namespace_changes WHERE namespace = ?').run('fragrance');
    } finally {
      raw.close();
    }
    const store = await openSqliteStore(path);
    try {
      assert.deepEqual(await store.listClaimChanges(profile.profile_id), [
        { ...claimShape(core), changed_at: '2026-03-01T10:00:00.000Z' },
        // No time known for its namespace: the profile's last update.
        { ...claimShape(fragrance), changed_at: '2026-02-01T00:00:00.000Z' },
      ]);
    } finally {
      await store.close();
    }
    const after_ = new DatabaseSync(path, { readOnly: true });
    try {
      const table = after_
        .prepare("SELECT name FROM sqlite_master WHERE name LIKE '%namespace_change%'")
        .all();
      assert.deepEqual(table, []);
    } finally {
      after_.close();
    }
  });

  it('hands out the same change list while the profile version holds, a new one after a claim write', async () => {
    const store = await openSqliteStore(freshPath());
    try {
      const profile = profileRecord();
      await store.insertProfile(profile);
      await store.putClaims(profile.profile_id, [minimalClaim()]);
      const first = await store.listClaimChanges(profile.profile_id);
      assert.equal(await store.listClaimChanges(profile.profile_id), first);
      await store.putClaims(profile.profile_id, [minimalClaim({ key: 'risk_tolerance' })]);
      const second = await store.listClaimChanges(profile.profile_id);
      assert.notEqual(second, first);
      assert.equal(second.length, 2);
      assert.deepEqual(await store.listClaimChanges('ppx:profile:missing'), []);
    } finally {
      await store.close();
    }
  });
});
