import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { a2aTaskQueries } from '../../src/store/sqlite/a2a-task-queries.ts';
import { listMigrations, migrate } from '../../src/store/sqlite/migrate.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { StatementCache } from '../../src/store/sqlite/statement-cache.ts';
import { at, grant, profileRecord } from '../support/store-records.ts';

// Migration 0012 (A2A tasks) on a database of the stage before it, the table's own guards, and
// the plans of the task queries (the contract suite, contract-a2a-tasks.ts, covers the behaviour).

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ppx-a2a-tasks-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A statement cache that remembers every SQL text it was asked for. */
class RecordingCache extends StatementCache {
  readonly texts = new Set<string>();

  override get(sql: string): StatementSync {
    this.texts.add(sql);
    return super.get(sql);
  }
}

describe('migration 0012 (A2A tasks)', () => {
  it('applies once to a database of migration 0011, keeping what it held', async () => {
    const path = join(dir, 'at-0011.db');
    const raw = new DatabaseSync(path);
    const profile = profileRecord();
    const g = grant({ subject_id: profile.subject_id, profile_id: profile.profile_id });
    try {
      raw.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)');
      for (const { version, file } of listMigrations().filter((m) => m.version <= 11)) {
        raw.exec(readFileSync(new URL(`../../src/store/sqlite/migrations/${file}`, import.meta.url), 'utf8'));
        raw.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, 'then');
      }
      assert.deepEqual(raw.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'a2a%'").all(), []);
    } finally {
      raw.close();
    }
    const seeded = await openSqliteStore(path);
    try {
      await seeded.insertProfile(profile);
      await seeded.insertGrant(g);
    } finally {
      await seeded.close();
    }
    const task = {
      task_id: 'task-1',
      owner: g.grant_id,
      context_id: 'ctx-1',
      state: 'TASK_STATE_COMPLETED',
      created_at: at(0),
      updated_at: at(1),
      body: '{"id":"task-1"}',
    };
    const store = await openSqliteStore(path);
    try {
      assert.deepEqual(await store.getProfile(profile.profile_id), profile);
      assert.deepEqual(await store.getGrant(g.grant_id), g);
      await store.putA2aTask(task);
      assert.deepEqual(await store.getA2aTask('task-1', g.grant_id), task);
    } finally {
      await store.close();
    }
    const after_ = new DatabaseSync(path, { readOnly: true });
    try {
      const versions = after_
        .prepare('SELECT version FROM schema_migrations WHERE version BETWEEN 11 AND 12')
        .all();
      assert.deepEqual(
        versions.map((row) => row['version']),
        [11, 12],
      );
      const objects = after_
        .prepare("SELECT type, name FROM sqlite_master WHERE tbl_name = 'a2a_tasks' ORDER BY name")
        .all()
        .map((row) => `${row['type']} ${row['name']}`);
      assert.deepEqual(objects, [
        'table a2a_tasks',
        'index a2a_tasks_by_age', // migration 0013
        'index a2a_tasks_by_context',
        'index a2a_tasks_by_counterpart', // migration 0014
        'index a2a_tasks_by_owner',
        'index sqlite_autoindex_a2a_tasks_1',
      ]);
    } finally {
      after_.close();
    }
  });

  it('refuses values of the wrong type and a body that is not JSON (STRICT, json_valid)', () => {
    const db = new DatabaseSync(':memory:');
    try {
      migrate(db);
      const insert = db.prepare(
        `INSERT INTO a2a_tasks (task_id, owner, context_id, state, created_at, updated_at, updated_ms, body)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const good = [
        't',
        'ppx:grant:g',
        'c',
        'TASK_STATE_WORKING',
        at(0),
        at(0),
        Date.parse(at(0)),
        '{}',
      ] as const;
      assert.throws(() => insert.run(...good.slice(0, 7), '{not json'), /CHECK constraint/);
      assert.throws(
        () => insert.run(...good.slice(0, 6), 'soon', '{}'),
        /cannot store TEXT value in INTEGER/,
      );
      assert.throws(() => insert.run(...good.slice(0, 3), null, ...good.slice(4)), /NOT NULL/);
      insert.run(...good);
      assert.equal(db.prepare('SELECT count(*) AS n FROM a2a_tasks').get()?.['n'], 1);
    } finally {
      db.close();
    }
  });

  it('reads a task by its primary key and lists by walking an index in order, never sorting', () => {
    const db = new DatabaseSync(':memory:');
    try {
      migrate(db);
      const sql = new RecordingCache(db);
      const queries = a2aTaskQueries(sql);
      const put = (id: string, minute: number) =>
        queries.putA2aTask({
          task_id: id,
          owner: 'ppx:grant:g',
          context_id: 'c',
          state: 'TASK_STATE_COMPLETED',
          created_at: at(0),
          updated_at: at(minute),
          body: '{}',
        });
      put('a', 1);
      put('b', 2);
      queries.getA2aTask('a', 'ppx:grant:g');
      const { next } = queries.listA2aTasks('ppx:grant:g', { pageSize: 1 });
      assert.ok(next !== undefined);
      for (const query of [
        { pageSize: 1, after: next },
        { pageSize: 1, contextId: 'c' },
        { pageSize: 1, contextId: 'c', state: 'TASK_STATE_COMPLETED', after: next },
        { pageSize: 1, state: 'TASK_STATE_FAILED', after: next },
      ]) {
        queries.listA2aTasks('ppx:grant:g', query);
      }
      const reads = [...sql.texts].filter((text) => text.trimStart().startsWith('SELECT'));
      // The read by id; per listing its page and its count (one count per set of filters).
      assert.equal(reads.length, 10, reads.join('\n'));
      for (const text of reads) {
        const params = Array.from(text.matchAll(/\?/g), () => null);
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${text}`)
          .all(...params)
          .map((row) => String(row['detail']));
        assert.equal(plan.length, 1, `${text}\n${plan.join('\n')}`);
        assert.match(
          plan[0]!,
          /^SEARCH a2a_tasks USING (COVERING )?INDEX (a2a_tasks_by_(owner|context) \(owner=\?|sqlite_autoindex_a2a_tasks_1 \(task_id=\?\)$)/,
          text,
        );
        assert.doesNotMatch(plan.join('\n'), /TEMP B-TREE/, text);
      }
    } finally {
      db.close();
    }
  });
});
