import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../src/model/audit-event.ts';
import type { AuditFilter, Store } from '../../src/store/store.ts';
import {
  at,
  auditEvent,
  refreshChain,
  refreshToken,
  subjectId,
  tokenFamily,
  withStore,
} from '../support/store-records.ts';

// The audit log as it grows (issue 10, item 10): newest-first order, pages that stay correct when
// a listing stops at its bound of rows examined, time bounds over events logged out of time order,
// and pruning. contract-audit.ts holds the basic round trip, filters and pagination.

/** Every event of a listing, following next_cursor; also how many pages it took. */
async function walk(store: Store, filter: AuditFilter): Promise<{ events: AuditEvent[]; pages: number }> {
  const events: AuditEvent[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.listAudit(cursor === undefined ? filter : { ...filter, cursor });
    events.push(...page.events);
    cursor = page.next_cursor;
    pages += 1;
    assert.ok(pages <= 1000, 'pagination does not terminate');
  } while (cursor !== undefined);
  return { events, pages };
}

export function auditLogContract(open: () => Promise<Store>): void {
  describe('audit log at size', () => {
    it(
      'keeps a large append whole and in order, its events logged out of time order included',
      withStore(open, async (store) => {
        const subject = subjectId();
        // 70: more than two of the SQLite store's many-row INSERTs (32 rows each) and a rest.
        const events = Array.from({ length: 70 }, (_, i) =>
          auditEvent({ subject_id: subject, at: at(i % 10 === 9 ? i - 5 : i) }),
        );
        await store.appendAudit(events);
        assert.deepEqual((await walk(store, { subject_id: subject, limit: 25 })).events, events);
        const inTransaction = events.map((e) => auditEvent({ ...e, event_id: `${e.event_id}-tx` }));
        await store.transaction((tx) => tx.appendAudit(inTransaction));
        assert.deepEqual((await walk(store, { subject_id: subject, limit: 50 })).events, [
          ...events,
          ...inTransaction,
        ]);
        // Time bounds see the late events too (an event at(64) was logged after at(68)).
        const bounded = await walk(store, { subject_id: subject, limit: 50, since: at(64), until: at(65) });
        assert.deepEqual(
          bounded.events.map((e) => e.event_id),
          [...events, ...inTransaction].filter((e) => e.at === at(64)).map((e) => e.event_id),
        );
      }),
    );

    it(
      'lists newest first on request, paging back to the oldest, with cursors that keep their direction',
      withStore(open, async (store) => {
        const subject = subjectId();
        const events = Array.from({ length: 7 }, (_, i) => auditEvent({ subject_id: subject, at: at(i) }));
        await store.appendAudit(events);
        const newest = await store.listAudit({ subject_id: subject, limit: 1, order: 'newest' });
        assert.deepEqual(newest.events, [events[6]]);
        const all = await walk(store, { subject_id: subject, limit: 3, order: 'newest' });
        assert.deepEqual(all.events, [...events].reverse());
        assert.equal(all.pages, 3);
        const oldest = await store.listAudit({ subject_id: subject, limit: 3 });
        await assert.rejects(
          store.listAudit({ subject_id: subject, limit: 3, order: 'newest', cursor: oldest.next_cursor }),
        );
        const filtered = await walk(store, {
          subject_id: subject,
          limit: 2,
          order: 'newest',
          since: at(2),
          until: at(5),
        });
        assert.deepEqual(filtered.events, events.slice(2, 5).reverse());
      }),
    );

    it(
      'stores a list of claim keys once, and gives it back frozen, one array for the events of a page that name it',
      withStore(open, async (store) => {
        const subject = subjectId();
        const keys = Array.from({ length: 50 }, (_, i) => `key_${i}`);
        const events = [
          ...Array.from({ length: 5 }, (_, i) =>
            auditEvent({ subject_id: subject, claim_keys: keys, at: at(i) }),
          ),
          auditEvent({ subject_id: subject, claim_keys: ['other'], at: at(5) }),
          auditEvent({ subject_id: subject, claim_keys: [], at: at(6) }),
        ];
        for (const event of events) await store.appendAudit([event]);
        const page = await store.listAudit({ subject_id: subject, limit: 50 });
        assert.deepEqual(page.events, events);
        assert.equal(page.events[0]?.claim_keys, page.events[4]?.claim_keys);
        assert.throws(() => page.events[0]?.claim_keys.push('mutated'), TypeError);
        assert.deepEqual(
          (await store.listAudit({ subject_id: subject, limit: 1 })).events[0]?.claim_keys,
          keys,
        );
      }),
    );

    it(
      'finds a rare event under two filters across thousands of others, in short pages with no gap',
      withStore(open, async (store) => {
        const subject = subjectId();
        const grantId = 'ppx:grant:many';
        const events = Array.from({ length: 5000 }, (_, i) =>
          auditEvent({
            subject_id: subject,
            grant_id: grantId,
            at: at(i),
            action: i % 1700 === 1699 ? 'export' : 'read',
          }),
        );
        await store.appendAudit(events);
        const rare = events.filter((e) => e.action === 'export');
        assert.equal(rare.length, 2);
        for (const order of ['oldest', 'newest'] as const) {
          const found = await walk(store, {
            subject_id: subject,
            grant_id: grantId,
            action: 'export',
            limit: 10,
            order,
          });
          assert.deepEqual(found.events, order === 'oldest' ? rare : [...rare].reverse());
          // A listing reads a bounded number of rows, so it takes a few short pages, not one long scan.
          assert.ok(found.pages >= 2, `${found.pages} pages`);
        }
        // One equality filter walks its own index: the page is full at once.
        const reads = await store.listAudit({ subject_id: subject, action: 'export', limit: 10 });
        assert.deepEqual(reads, { events: rare });
      }),
    );

    it(
      'keeps since and until exact when events are logged out of time order',
      withStore(open, async (store) => {
        const subject = subjectId();
        // Logged in this order; times jump back (a request that took long, a clock set back).
        const minutes = [0, 10, 5, 20, 1, 30, 25, 40, 2];
        const events = minutes.map((m) => auditEvent({ subject_id: subject, at: at(m) }));
        for (const event of events) await store.appendAudit([event]);
        const list = async (extra: Partial<AuditFilter>) =>
          (await walk(store, { subject_id: subject, limit: 2, ...extra })).events;
        const expect = (keep: (m: number) => boolean) => events.filter((_, i) => keep(minutes[i]!));
        assert.deepEqual(
          await list({ since: at(5) }),
          expect((m) => m >= 5),
        );
        assert.deepEqual(
          await list({ until: at(5) }),
          expect((m) => m < 5),
        );
        assert.deepEqual(
          await list({ since: at(2), until: at(26) }),
          expect((m) => m >= 2 && m < 26),
        );
        assert.deepEqual(await list({ since: at(41) }), []);
        assert.deepEqual(await list({ until: at(3), order: 'newest' }), expect((m) => m < 3).reverse());
      }),
    );

    it(
      'prunes only events from before the horizon, oldest first, and the key lists left unused',
      withStore(open, async (store) => {
        const subject = subjectId();
        const events = Array.from({ length: 10 }, (_, i) =>
          auditEvent({ subject_id: subject, at: at(i), claim_keys: [`k${i % 3}`, i < 5 ? 'old' : 'new'] }),
        );
        await store.appendAudit(events);
        assert.equal(await store.pruneAudit(at(6), 4), 4);
        assert.equal(await store.pruneAudit(at(6), 4), 2);
        assert.equal(await store.pruneAudit(at(6), 4), 0);
        assert.equal(await store.pruneAuditKeySets(), 3);
        assert.equal(await store.pruneAuditKeySets(), 0);
        assert.deepEqual((await store.listAudit({ subject_id: subject, limit: 50 })).events, events.slice(6));
        // The horizon never moves back: an earlier cutoff removes nothing more.
        assert.equal(await store.pruneAudit(at(1), 100), 0);
        await store.appendAudit([auditEvent({ subject_id: subject, at: at(3) })]);
        assert.equal((await store.listAudit({ subject_id: subject, limit: 50 })).events.length, 5);
      }),
    );

    it(
      'prunes the refresh chains whose current token expired or whose family was revoked, and only those',
      withStore(open, async (store) => {
        const [live, expired, expiresNow, ended] = [
          tokenFamily(),
          tokenFamily(),
          tokenFamily(),
          tokenFamily(),
        ];
        for (const family of [live, expired, expiresNow, ended]) await store.insertTokenFamily(family);
        const chains = [
          refreshChain({ family_id: live.family_id, generation: 3, expires_at: at(100) }),
          refreshChain({ family_id: expired.family_id, generation: 9, expires_at: at(10) }),
          // Expiring at the very instant of the pruning: can never be exchanged again either.
          refreshChain({ family_id: expiresNow.family_id, expires_at: at(50) }),
          refreshChain({ family_id: ended.family_id, expires_at: at(100) }),
        ];
        for (const chain of chains) await store.insertRefreshChain(chain);
        await store.revokeTokenFamily(ended.family_id, at(20));
        assert.equal(await store.pruneRefreshTokens(at(50)), 3);
        assert.deepEqual(await store.getRefreshChain(live.family_id), chains[0]);
        for (const gone of [expired, expiresNow, ended]) {
          assert.equal(await store.getRefreshChain(gone.family_id), undefined);
        }
        assert.equal(await store.pruneRefreshTokens(at(50)), 0);
      }),
    );

    it(
      'prunes the refresh tokens that can never be exchanged again, and only those',
      withStore(open, async (store) => {
        const live = tokenFamily();
        const other = tokenFamily();
        const ended = tokenFamily();
        for (const family of [live, other, ended]) await store.insertTokenFamily(family);
        const current = refreshToken({ family_id: live.family_id, expires_at: at(100) });
        const expired = refreshToken({ family_id: live.family_id, status: 'rotated', expires_at: at(10) });
        // Expiring at the very instant of the pruning: can never be exchanged again either.
        const expiresNow = refreshToken({
          family_id: other.family_id,
          status: 'rotated',
          expires_at: at(50),
        });
        const otherCurrent = refreshToken({ family_id: other.family_id, expires_at: at(51) });
        const ofRevoked = refreshToken({ family_id: ended.family_id, expires_at: at(100) });
        // Both expired and of a revoked family: removed, and counted, once.
        const expiredOfRevoked = refreshToken({
          family_id: ended.family_id,
          status: 'rotated',
          expires_at: at(5),
        });
        const tokens = [current, expired, expiresNow, otherCurrent, ofRevoked, expiredOfRevoked];
        for (const token of tokens) await store.insertRefreshToken(token);
        await store.revokeTokenFamily(ended.family_id, at(20));
        assert.equal(await store.pruneRefreshTokens(at(50)), 4);
        assert.deepEqual(await store.getRefreshToken(current.token_hash), current);
        assert.deepEqual(await store.getRefreshToken(otherCurrent.token_hash), otherCurrent);
        for (const gone of [expired, expiresNow, ofRevoked, expiredOfRevoked]) {
          assert.equal(await store.getRefreshToken(gone.token_hash), undefined);
        }
        assert.equal(await store.pruneRefreshTokens(at(50)), 0);
      }),
    );
  });
}
