import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../src/model/audit-event.ts';
import { AUDIT_MAX_EXAMINED } from '../../src/store/audit-rows.ts';
import { auditQueries } from '../../src/store/sqlite/audit-queries.ts';
import { migrate } from '../../src/store/sqlite/migrate.ts';
import { StatementCache } from '../../src/store/sqlite/statement-cache.ts';
import type { AuditFilter } from '../../src/store/store.ts';
import { at, auditEvent } from '../support/store-records.ts';

// The audit log at 100,000 events (issue 10, item 10): every filter the API offers, alone and
// combined, either way, gives exactly the events it should, and every statement a listing runs
// reads through an index (a search, never a scan or a sort), so that no listing can hold the event
// loop for long. No timings: the query plans and the page counts say it.

/** A statement cache that remembers every SQL text it prepared. */
class RecordingCache extends StatementCache {
  readonly texts = new Set<string>();
  override get(sql: string) {
    this.texts.add(sql);
    return super.get(sql);
  }
}

const SUBJECTS = ['subj_a', 'subj_b'];
const GRANTS = ['ppx:grant:g1', 'ppx:grant:g2', 'ppx:grant:g3'];
const ACTORS = ['client_one', 'client_two'];
const COUNT = 100_000;

function eventAt(i: number): AuditEvent {
  return auditEvent({
    event_id: `ppx:event:${i}`,
    subject_id: SUBJECTS[i % 2]!,
    grant_id: GRANTS[i % 3]!,
    actor: { kind: 'grantee', id: ACTORS[Math.floor(i / 7) % 2]! },
    // One event in 20,000 is an export: the rare action.
    action: i % 20_000 === 19_999 ? 'export' : 'read',
    claim_keys: i % 2 === 0 ? ['core.novelty', 'core.price'] : ['fragrance.notes'],
    // Seconds apart, with a few logged a minute behind the one before (out of time order).
    at: new Date(Date.parse(at(0)) + i * 1000 - (i % 997 === 0 ? 60_000 : 0)).toISOString(),
  });
}

describe('the audit log at 100,000 events', () => {
  const db = new DatabaseSync(':memory:');
  migrate(db);
  const sql = new RecordingCache(db);
  const queries = auditQueries(sql);
  const all = Array.from({ length: COUNT }, (_, i) => eventAt(i));
  db.exec('BEGIN');
  for (let i = 0; i < COUNT; i += 1000) queries.appendAudit(all.slice(i, i + 1000));
  db.exec('COMMIT');

  const walk = (filter: AuditFilter) => {
    const events: AuditEvent[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = queries.listAudit(cursor === undefined ? filter : { ...filter, cursor });
      events.push(...page.events);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== undefined && pages < 10_000);
    return { events, pages };
  };

  const since = new Date(Date.parse(at(0)) + 95_000 * 1000).toISOString();
  const until = new Date(Date.parse(at(0)) + 2_000 * 1000).toISOString();
  const cases: { name: string; filter: Omit<AuditFilter, 'limit'>; keep: (e: AuditEvent) => boolean }[] = [
    { name: 'subject', filter: { subject_id: 'subj_a' }, keep: (e) => e.subject_id === 'subj_a' },
    {
      name: 'rare action',
      filter: { subject_id: 'subj_b', action: 'export' },
      keep: (e) => e.subject_id === 'subj_b' && e.action === 'export',
    },
    {
      name: 'grant and rare action',
      filter: { subject_id: 'subj_b', grant_id: GRANTS[1]!, action: 'export' },
      keep: (e) => e.subject_id === 'subj_b' && e.grant_id === GRANTS[1] && e.action === 'export',
    },
    {
      name: 'actor since',
      filter: { subject_id: 'subj_a', actor_id: 'client_two', since },
      keep: (e) => e.subject_id === 'subj_a' && e.actor.id === 'client_two' && e.at >= since,
    },
    {
      name: 'until',
      filter: { subject_id: 'subj_b', until },
      keep: (e) => e.subject_id === 'subj_b' && e.at < until,
    },
  ];

  for (const { name, filter, keep } of cases) {
    it(`lists exactly the events of "${name}", oldest and newest first`, () => {
      const expected = all.filter(keep);
      const oldest = walk({ ...filter, limit: 500 });
      assert.deepEqual(
        oldest.events.map((e) => e.event_id),
        expected.map((e) => e.event_id),
      );
      const newest = walk({ ...filter, limit: 500, order: 'newest' });
      assert.deepEqual(
        newest.events.map((e) => e.event_id),
        expected.map((e) => e.event_id).reverse(),
      );
      // A page reads at most AUDIT_MAX_EXAMINED rows past its own, so a walk takes about
      // (rows in the walked index) / AUDIT_MAX_EXAMINED pages when its filters are rare.
      assert.ok(oldest.pages <= Math.ceil(COUNT / AUDIT_MAX_EXAMINED) + Math.ceil(expected.length / 500) + 1);
    });
  }

  it('reaches the newest event in one query', () => {
    const page = queries.listAudit({ subject_id: 'subj_b', limit: 1, order: 'newest' });
    assert.deepEqual(
      page.events.map((e) => e.event_id),
      [all.at(-1)!.event_id],
    );
  });

  it('stores each list of claim keys once', () => {
    assert.equal(db.prepare('SELECT count(*) AS n FROM audit_key_sets').get()?.['n'], 2);
  });

  it('plans every statement of a listing as an index search, with no scan and no sort', () => {
    const listing = [...sql.texts].filter((text) => !text.startsWith('INSERT') && !text.startsWith('UPDATE'));
    assert.ok(listing.length >= 8, `${listing.length} statements`);
    for (const text of listing) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${text}`)
        .all()
        .map((row) => String(row['detail']));
      for (const step of plan) {
        assert.doesNotMatch(step, /^SCAN|TEMP B-TREE/, `${text}\n${plan.join('\n')}`);
      }
    }
  });
});
