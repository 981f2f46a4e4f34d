import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { CrossDomainReviewRecord } from '../../src/model/cross-domain-review.ts';
import { IdConflictError, type Store } from '../../src/store/store.ts';
import { at, subjectId, withStore } from '../support/store-records.ts';

// Store contract for cross-domain transfer reviews (migration 0006, docs/cross-domain.md).

function review(overrides: Partial<CrossDomainReviewRecord> = {}): CrossDomainReviewRecord {
  return {
    review_id: `ppx:review:${randomUUID()}`,
    grant_id: 'ppx:grant:review-contract',
    grantee_id: 'travel-demo',
    subject_id: 'subj_review_contract',
    source_domains: ['fragrance'],
    target_domain: 'travel',
    status: 'pending',
    mapped_keys: ['novelty_tolerance', 'sensory_intensity_preference'],
    created_at: at(0),
    ...overrides,
  };
}

export function reviewContract(open: () => Promise<Store>): void {
  describe('cross-domain reviews', () => {
    it(
      'round-trips a review, keeping absent optional fields absent; a missing one is undefined',
      withStore(open, async (store) => {
        const r = review();
        await store.insertCrossDomainReview(r);
        assert.deepEqual(await store.getCrossDomainReview(r.review_id), r);
        assert.equal('decided_at' in ((await store.getCrossDomainReview(r.review_id)) ?? {}), false);
        assert.equal(await store.getCrossDomainReview('ppx:review:missing'), undefined);
      }),
    );

    it(
      'refuses a reused review id',
      withStore(open, async (store) => {
        const r = review();
        await store.insertCrossDomainReview(r);
        await assert.rejects(
          store.insertCrossDomainReview({ ...r, grant_id: 'ppx:grant:other' }),
          IdConflictError,
        );
        assert.deepEqual(await store.getCrossDomainReview(r.review_id), r);
      }),
    );

    it(
      'lists by grant and by subject (optionally by status), oldest first, ties by id',
      withStore(open, async (store) => {
        const subject = subjectId();
        const a = review({
          subject_id: subject,
          grant_id: 'ppx:grant:a',
          created_at: at(2),
          review_id: 'ppx:review:b',
        });
        const b = review({
          subject_id: subject,
          grant_id: 'ppx:grant:a',
          created_at: at(2),
          review_id: 'ppx:review:a',
        });
        const c = review({
          subject_id: subject,
          grant_id: 'ppx:grant:c',
          created_at: at(1),
          status: 'rejected',
        });
        const other = review({ subject_id: subjectId(), grant_id: 'ppx:grant:a', created_at: at(0) });
        for (const r of [a, b, c, other]) await store.insertCrossDomainReview(r);
        const ids = (rs: CrossDomainReviewRecord[]) => rs.map((r) => r.review_id);
        assert.deepEqual(ids(await store.listCrossDomainReviewsByGrant('ppx:grant:a')), [
          other.review_id,
          b.review_id,
          a.review_id,
        ]);
        assert.deepEqual(ids(await store.listCrossDomainReviewsBySubject(subject)), [
          c.review_id,
          b.review_id,
          a.review_id,
        ]);
        assert.deepEqual(ids(await store.listCrossDomainReviewsBySubject(subject, 'pending')), [
          b.review_id,
          a.review_id,
        ]);
        assert.deepEqual(ids(await store.listCrossDomainReviewsBySubject(subject, 'rejected')), [
          c.review_id,
        ]);
        assert.deepEqual(await store.listCrossDomainReviewsByGrant('ppx:grant:none'), []);
      }),
    );

    it(
      'decides a pending review exactly once, even when two decisions race',
      withStore(open, async (store) => {
        const r = review();
        await store.insertCrossDomainReview(r);
        const [first, second] = await Promise.all([
          store.decideCrossDomainReview(r.review_id, 'approved', at(5)),
          store.decideCrossDomainReview(r.review_id, 'rejected', at(6)),
        ]);
        const winners = [first, second].filter((x) => x !== undefined);
        assert.equal(winners.length, 1);
        const stored = await store.getCrossDomainReview(r.review_id);
        assert.deepEqual(stored, winners[0]);
        assert.equal(stored?.status, first !== undefined ? 'approved' : 'rejected');
        assert.equal(stored?.decided_at, first !== undefined ? at(5) : at(6));
        assert.equal(await store.decideCrossDomainReview(r.review_id, 'rejected', at(7)), undefined);
        assert.equal(await store.decideCrossDomainReview('ppx:review:missing', 'approved', at(7)), undefined);
        assert.deepEqual(await store.listCrossDomainReviewsBySubject(r.subject_id, 'pending'), []);
      }),
    );

    it(
      'rolls an insert back with its transaction',
      withStore(open, async (store) => {
        const r = review();
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.insertCrossDomainReview(r);
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.equal(await store.getCrossDomainReview(r.review_id), undefined);
      }),
    );
  });
}
