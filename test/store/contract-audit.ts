import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../src/model/audit-event.ts';
import type { AuditFilter, Store } from '../../src/store/store.ts';
import { at, auditEvent, subjectId, withStore } from '../support/store-records.ts';

/** Every page of a listing, following next_cursor until it is absent. */
async function allPages(store: Store, filter: AuditFilter): Promise<AuditEvent[][]> {
  const pages: AuditEvent[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listAudit(cursor === undefined ? filter : { ...filter, cursor });
    pages.push(page.events);
    cursor = page.next_cursor;
    assert.ok(pages.length <= 100, 'pagination does not terminate');
  } while (cursor !== undefined);
  return pages;
}

export function auditContract(open: () => Promise<Store>): void {
  describe('audit', () => {
    it(
      'commits every one of many concurrent appends; a duplicate event id fails alone',
      withStore(open, async (store) => {
        const subject = subjectId();
        const events = Array.from({ length: 60 }, (_, i) => auditEvent({ subject_id: subject, at: at(i) }));
        const first = events[0]!;
        const results = await Promise.allSettled([
          ...events.map((e) => store.appendAudit([e])),
          store.appendAudit([first]),
        ]);
        assert.deepEqual(
          results.map((r) => r.status),
          [...events.map(() => 'fulfilled'), 'rejected'],
        );
        const page = await store.listAudit({ subject_id: subject, limit: 500 });
        assert.deepEqual(
          page.events.map((e) => e.event_id),
          events.map((e) => e.event_id),
        );
      }),
    );

    it(
      'round-trips events oldest first, only the given subject’s',
      withStore(open, async (store) => {
        const subject = subjectId();
        const minimal = auditEvent({ subject_id: subject, claim_keys: [], at: at(0) });
        delete minimal.grant_id;
        const detailed = auditEvent({
          subject_id: subject,
          at: at(1),
          actor: { kind: 'subject', id: subject },
          action: 'denied',
          outcome: 'denied',
          detail: 'namespace travel is not granted',
        });
        await store.appendAudit([minimal]);
        await store.appendAudit([detailed, auditEvent({ at: at(1) })]);
        const page = await store.listAudit({ subject_id: subject, limit: 10 });
        assert.deepEqual(page, { events: [minimal, detailed] });
        assert.equal('grant_id' in (page.events[0] ?? {}), false);
        assert.equal('next_cursor' in page, false);
        assert.deepEqual(await store.listAudit({ subject_id: 'subj_missing', limit: 10 }), { events: [] });
      }),
    );

    it(
      'rejects a duplicate event_id, storing none of that batch and never changing the original',
      withStore(open, async (store) => {
        const original = auditEvent();
        await store.appendAudit([original]);
        const fresh = auditEvent({ subject_id: original.subject_id, at: at(2) });
        const forged = { ...original, outcome: 'denied' as const, detail: 'rewritten' };
        await assert.rejects(store.appendAudit([fresh, forged]));
        const page = await store.listAudit({ subject_id: original.subject_id, limit: 10 });
        assert.deepEqual(page.events, [original]);
      }),
    );

    it(
      'filters by grant_id, actor_id and action, alone and combined',
      withStore(open, async (store) => {
        const subject = subjectId();
        const e = (grant: string, actor: string, action: AuditEvent['action']) =>
          auditEvent({
            subject_id: subject,
            grant_id: `ppx:grant:${grant}`,
            actor: { kind: 'grantee', id: actor },
            action,
          });
        const events = [
          e('g1', 'c1', 'read'),
          e('g2', 'c2', 'query'),
          e('g1', 'c1', 'query'),
          e('g2', 'c1', 'read'),
        ];
        await store.appendAudit(events);
        const list = async (extra: Partial<AuditFilter>) =>
          (await store.listAudit({ subject_id: subject, limit: 50, ...extra })).events;
        const [a, b, c, d] = events;
        assert.deepEqual(await list({ grant_id: 'ppx:grant:g1' }), [a, c]);
        assert.deepEqual(await list({ actor_id: 'c1' }), [a, c, d]);
        assert.deepEqual(await list({ action: 'query' }), [b, c]);
        assert.deepEqual(await list({ grant_id: 'ppx:grant:g2', actor_id: 'c1', action: 'read' }), [d]);
        assert.deepEqual(await list({ grant_id: 'ppx:grant:none' }), []);
      }),
    );

    it(
      'treats since as inclusive and until as exclusive, comparing instants',
      withStore(open, async (store) => {
        const subject = subjectId();
        const events = [0, 10, 20, 30].map((m) => auditEvent({ subject_id: subject, at: at(m) }));
        await store.appendAudit(events);
        const list = async (extra: Partial<AuditFilter>) =>
          (await store.listAudit({ subject_id: subject, limit: 50, ...extra })).events;
        assert.deepEqual(await list({ since: at(10) }), events.slice(1));
        assert.deepEqual(await list({ until: at(20) }), events.slice(0, 2));
        assert.deepEqual(await list({ since: at(10), until: at(30) }), events.slice(1, 3));
        assert.deepEqual(await list({ since: at(10), until: at(10) }), []);
        // The same instant as at(10), written with a +02:00 offset.
        const offset = '2026-03-01T11:10:00+02:00';
        assert.deepEqual(await list({ since: offset }), events.slice(1));
      }),
    );

    it(
      'paginates across three pages with no duplicates or gaps',
      withStore(open, async (store) => {
        const subject = subjectId();
        const events = Array.from({ length: 7 }, (_, i) => auditEvent({ subject_id: subject, at: at(i) }));
        for (const event of events) await store.appendAudit([event]);
        await store.appendAudit([auditEvent()]);
        const pages = await allPages(store, { subject_id: subject, limit: 3 });
        assert.deepEqual(
          pages.map((p) => p.length),
          [3, 3, 1],
        );
        assert.deepEqual(pages.flat(), events);
      }),
    );

    it(
      'paginates a filtered listing, and gives no next_cursor when a page ends exactly at the last event',
      withStore(open, async (store) => {
        const subject = subjectId();
        const all = Array.from({ length: 12 }, (_, i) =>
          auditEvent({ subject_id: subject, at: at(i), action: i % 2 === 0 ? 'read' : 'query' }),
        );
        await store.appendAudit(all);
        const reads = all.filter((e) => e.action === 'read');
        const pages = await allPages(store, { subject_id: subject, action: 'read', limit: 2 });
        assert.deepEqual(
          pages.map((p) => p.length),
          [2, 2, 2],
        );
        assert.deepEqual(pages.flat(), reads);
      }),
    );

    it(
      'clamps limit to 1..500',
      withStore(open, async (store) => {
        const subject = subjectId();
        const events = Array.from({ length: 501 }, () => auditEvent({ subject_id: subject }));
        await store.appendAudit(events);
        const one = await store.listAudit({ subject_id: subject, limit: 0 });
        assert.deepEqual(one.events, events.slice(0, 1));
        assert.ok(one.next_cursor);
        const max = await store.listAudit({ subject_id: subject, limit: 10_000 });
        assert.equal(max.events.length, 500);
        assert.ok(max.next_cursor);
        const rest = await store.listAudit({ subject_id: subject, limit: 500, cursor: max.next_cursor });
        assert.deepEqual(rest, { events: events.slice(500) });
      }),
    );

    it(
      'rejects a cursor it did not issue',
      withStore(open, async (store) => {
        await assert.rejects(
          store.listAudit({ subject_id: subjectId(), limit: 10, cursor: 'not a cursor!' }),
        );
      }),
    );

    it(
      'exposes no way to change an audit event, and only pruning to remove one',
      withStore(open, async (store) => {
        const names = new Set<string>();
        for (
          let o: object | null = store;
          o !== null && o !== Object.prototype;
          o = Object.getPrototypeOf(o)
        ) {
          for (const name of Object.getOwnPropertyNames(o)) names.add(name);
        }
        const auditMethods = [...names].filter((name) => /audit/i.test(name)).sort();
        assert.deepEqual(auditMethods, ['appendAudit', 'listAudit', 'pruneAudit', 'pruneAuditKeySets']);
      }),
    );
  });
}
