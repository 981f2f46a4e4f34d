import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { postgresSide } from '../../src/store/transfer/postgres-side.ts';
import type { TransferSide, Values } from '../../src/store/transfer/side.ts';
import { sqliteSide } from '../../src/store/transfer/sqlite-side.ts';
import { TABLES } from '../../src/store/transfer/tables.ts';
import { transferStore } from '../../src/store/transfer/transfer.ts';
import { dropSchemas, postgresUnreachable, schemaName, urlInSchema } from '../support/postgres.ts';
import { skipWhen } from '../support/skip.ts';
import { minimalClaim } from '../support/store-records.ts';
import { changeDraft } from './contract-changes.ts';
import { fillEveryTable } from './transfer-fixture.ts';

// `ppx migrate`'s engine (src/store/transfer/): a whole store from SQLite to PostgreSQL and back,
// every row of every table, the counters that number what comes next, and nothing written when the
// target is not empty or the copy does not match.

const reason = await postgresUnreachable();
const schemas: string[] = [];
let dir = '';
let files = 0;

/** A PostgreSQL URL whose connections work in a new schema of their own (search_path). */
const freshUrl = (): string => urlInSchema(schemaName('mv', schemas));

const freshFile = () => join(dir, `store-${++files}.db`);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ppx-transfer-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
  if (!reason) await dropSchemas(schemas);
});

/** Every table's rows, in key order, as the transfer carries them. */
async function dump(side: TransferSide): Promise<Record<string, Values[]>> {
  try {
    await side.begin('source');
    const out: Record<string, Values[]> = {};
    for (const table of TABLES) out[table.name] = await side.page(table, undefined, 1_000_000);
    await side.rollback();
    return out;
  } finally {
    await side.close();
  }
}

/** transferStore between two sides, both closed afterwards. */
async function move(source: TransferSide, target: TransferSide) {
  try {
    return await transferStore(source, target);
  } finally {
    await source.close();
    await target.close();
  }
}

/** What a reader of the store sees of each subject, through the Store interface. */
async function seen(store: Store, subjects: readonly string[]): Promise<unknown> {
  const out: unknown[] = [
    await store.listClients(),
    await store.listSigningKeys(),
    await store.getSetting('provider_note'),
  ];
  for (const s of subjects) {
    const profile = await store.getProfileBySubject(s);
    assert.ok(profile);
    out.push(
      profile,
      await store.listClaims(profile.profile_id),
      await store.listClaimChanges(profile.profile_id),
      await store.listModifiers(profile.profile_id),
      await store.listGrantsBySubject(s),
      // From the epoch: every pending request, however old the fixture's times.
      await store.listPendingGrantRequestsBySubject(s, new Date(0).toISOString()),
      await store.listAudit({ subject_id: s, limit: 100 }),
      await store.listChanges({ after: 0, subjectId: s, limit: 1000 }),
      await store.listProposals(profile.profile_id),
      await store.listClaimHistory({ profile_id: profile.profile_id, limit: 100 }),
      await store.listPasskeys(s),
      await store.listConsentReceiptsBySubject(s),
    );
  }
  return out;
}

describe('ppx migrate: moving a whole store between SQLite and PostgreSQL', { ...skipWhen(reason) }, () => {
  it('lists every table and column of both schemas (a new column must be carried too)', async () => {
    const file = freshFile();
    await (await openSqliteStore(file)).close();
    const db = new DatabaseSync(file);
    const url = freshUrl();
    await (await openPostgresStore(url)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const skipped = new Set([
        'schema_migrations',
        'sqlite_sequence',
        'change_seq',
        'rate_windows',
        'dpop_proofs',
        'resource_subscriptions',
        'passkey_tickets',
      ]);
      const singletons = new Set(['change_counter', 'audit_clock', 'audit_prune_horizon']);
      const liteTables = (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      )
        .map((t) => t.name)
        .filter((t) => !skipped.has(t) && !singletons.has(t));
      const pgTables = (
        await client.query(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
        )
      ).rows
        .map((r) => String(r.table_name))
        .filter((t) => !skipped.has(t) && !singletons.has(t));
      const listed = TABLES.map((t) => t.name).sort();
      assert.deepEqual([...liteTables].sort(), listed);
      assert.deepEqual([...pgTables].sort(), listed);
      for (const table of TABLES) {
        const lite = (db.prepare(`PRAGMA table_info(${table.name})`).all() as { name: string }[]).map(
          (c) => c.name,
        );
        const spelled = table.columns.map((c) => table.sqlite?.[c] ?? c).filter((c) => c !== 'rowid');
        assert.deepEqual([...lite].sort(), [...spelled].sort(), `SQLite ${table.name}`);
        const cols = (
          await client.query(
            'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
            [table.name],
          )
        ).rows.map((r) => String(r.column_name));
        assert.deepEqual([...cols].sort(), [...table.columns].sort(), `PostgreSQL ${table.name}`);
      }
    } finally {
      db.close();
      await client.end();
    }
  });

  it('SQLite → PostgreSQL → SQLite carries every row, and numbering goes on where it stopped', async () => {
    const first = freshFile();
    const store = await openSqliteStore(first);
    const subjects = await fillEveryTable(store);
    const before = await seen(store, subjects);
    const lastChange = await store.latestChangeSeq();
    await store.close();

    const url = freshUrl();
    const there = await move(await sqliteSide(first), await postgresSide(url, 'pg'));
    assert.equal(there.ok, true, there.ok ? '' : there.message);
    assert.ok(there.ok && there.tables.every((t) => t.rows > 0), 'the fixture fills every table');
    const second = freshFile();
    const back = await move(await postgresSide(url, 'pg'), await sqliteSide(second));
    assert.equal(back.ok, true, back.ok ? '' : back.message);

    assert.deepEqual(await dump(await sqliteSide(second)), await dump(await sqliteSide(first)));
    const pgStore = await openPostgresStore(url);
    try {
      assert.deepEqual(await seen(pgStore, subjects), before);
      // The outbox goes on from the source's mark, and the schema's triggers are on again.
      assert.equal(await pgStore.latestChangeSeq(), lastChange);
      assert.equal(
        (await pgStore.appendChange(changeDraft({ subject_id: subjects[0]! }))).seq,
        lastChange + 1,
      );
      const profile = (await pgStore.getProfileBySubject(subjects[0]!))!;
      const shapes = (await pgStore.listClaimChanges(profile.profile_id)).length;
      await pgStore.putClaims(profile.profile_id, [
        minimalClaim({ namespace: 'travel', key: 'new_after_move' }),
      ]);
      assert.equal((await pgStore.listClaimChanges(profile.profile_id)).length, shapes + 1);
    } finally {
      await pgStore.close();
    }
    const moved = await openSqliteStore(second);
    try {
      assert.deepEqual(await seen(moved, subjects), before);
      assert.equal((await moved.appendChange(changeDraft({ subject_id: subjects[0]! }))).seq, lastChange + 1);
    } finally {
      await moved.close();
    }
  });

  it('refuses a target that already holds a store, and leaves it as it was', async () => {
    const source = freshFile();
    const a = await openSqliteStore(source);
    await fillEveryTable(a, 1);
    await a.close();
    const target = freshFile();
    const b = await openSqliteStore(target);
    const kept = await fillEveryTable(b, 1);
    const before = await seen(b, kept);
    await b.close();
    const result = await move(await sqliteSide(source), await sqliteSide(target));
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.code, 'target_not_empty');
    const after = await openSqliteStore(target);
    assert.deepEqual(await seen(after, kept), before);
    await after.close();
  });

  it('a copy that does not read back equal is rolled back, not committed', async () => {
    const source = freshFile();
    const a = await openSqliteStore(source);
    await fillEveryTable(a, 2);
    await a.close();
    const url = freshUrl();
    const real = await postgresSide(url, 'pg');
    // A target that loses the last claim it is given.
    const lossy: TransferSide = {
      ...real,
      insert: (table, rows) => real.insert(table, table.name === 'claims' ? rows.slice(0, -1) : rows),
    };
    const result = await move(await sqliteSide(source), lossy);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.code, 'mismatch');
    assert.match(!result.ok ? result.message : '', /claims/);
    const pgStore = await openPostgresStore(url);
    assert.equal(await pgStore.countProfiles(), 0);
    await pgStore.close();
  });
});
