import type { SQLInputValue } from 'node:sqlite';
import type { CrossDomainReviewRecord } from '../../model/cross-domain-review.ts';
import type { ReviewArea, Sync } from '../query-areas.ts';
import { placeholders, REVIEW_COLUMNS, reviewRow } from '../row-values.ts';
import { body, bodyOf } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { StatementCache } from './statement-cache.ts';

const ORDER = 'ORDER BY created_at, review_id';

/**
 * Cross-domain transfer reviews (migration 0006) as synchronous SQL. The decision is a
 * compare-and-set on `status` in the UPDATE's own WHERE clause, so it stays correct without the
 * in-process write mutex, and rewrites `body` with json_set in the same statement so the record
 * never disagrees with its columns.
 */
export function reviewQueries(sql: StatementCache): Sync<ReviewArea> {
  const all = (query: string, ...params: SQLInputValue[]): CrossDomainReviewRecord[] =>
    sql
      .get(query)
      .all(...params)
      .map((row) => body<CrossDomainReviewRecord>(row));
  return {
    getCrossDomainReview(reviewId) {
      return bodyOf(sql.get('SELECT body FROM cross_domain_reviews WHERE review_id = ?').get(reviewId));
    },
    listCrossDomainReviewsByGrant(grantId) {
      return all(`SELECT body FROM cross_domain_reviews WHERE grant_id = ? ${ORDER}`, grantId);
    },
    listCrossDomainReviewsBySubject(subjectId, status) {
      return status === undefined
        ? all(`SELECT body FROM cross_domain_reviews WHERE subject_id = ? ${ORDER}`, subjectId)
        : all(
            `SELECT body FROM cross_domain_reviews WHERE subject_id = ? AND status = ? ${ORDER}`,
            subjectId,
            status,
          );
    },
    insertCrossDomainReview(review) {
      const result = sql
        .get(
          `INSERT INTO cross_domain_reviews (${REVIEW_COLUMNS}) VALUES (${placeholders(REVIEW_COLUMNS)})
           ON CONFLICT (review_id) DO NOTHING`,
        )
        .run(...reviewRow(review));
      if (Number(result.changes) === 0) throw new IdConflictError(review.review_id, 'cross-domain review');
    },
    decideCrossDomainReview(reviewId, status, decidedAt) {
      const row = sql
        .get(
          `UPDATE cross_domain_reviews SET status = ?, decided_at = ?,
             body = json_set(body, '$.status', ?, '$.decided_at', ?)
           WHERE review_id = ? AND status = 'pending' RETURNING body`,
        )
        .get(status, decidedAt, status, decidedAt, reviewId);
      return bodyOf<CrossDomainReviewRecord>(row);
    },
  };
}
