import type { CrossDomainReviewRecord } from '../../model/cross-domain-review.ts';
import type { ReviewArea } from '../query-areas.ts';
import { placeholders, REVIEW_COLUMNS, reviewRow } from '../row-values.ts';
import { body, bodyOf, toJson } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { Sql } from './sql.ts';

export type ReviewQueries = ReviewArea;

const ORDER = 'ORDER BY created_at, review_id';

/**
 * Cross-domain transfer reviews (the SQLite side's review-queries.ts). The decision is a
 * compare-and-set on `status` in the UPDATE's own WHERE clause, patching `body` in the same
 * statement.
 */
export function reviewQueries(sql: Sql): ReviewQueries {
  const all = async (query: string, ...values: unknown[]) =>
    (await sql.all(query, ...values)).map((row) => body<CrossDomainReviewRecord>(row));
  return {
    async getCrossDomainReview(reviewId) {
      return bodyOf(await sql.get('SELECT body FROM cross_domain_reviews WHERE review_id = ?', reviewId));
    },
    listCrossDomainReviewsByGrant: (grantId) =>
      all(`SELECT body FROM cross_domain_reviews WHERE grant_id = ? ${ORDER}`, grantId),
    listCrossDomainReviewsBySubject: (subjectId, status) =>
      status === undefined
        ? all(`SELECT body FROM cross_domain_reviews WHERE subject_id = ? ${ORDER}`, subjectId)
        : all(
            `SELECT body FROM cross_domain_reviews WHERE subject_id = ? AND status = ? ${ORDER}`,
            subjectId,
            status,
          ),
    async insertCrossDomainReview(review) {
      const inserted = await sql.run(
        `INSERT INTO cross_domain_reviews (${REVIEW_COLUMNS}) VALUES (${placeholders(REVIEW_COLUMNS)})
         ON CONFLICT (review_id) DO NOTHING`,
        ...reviewRow(review),
      );
      if (inserted === 0) throw new IdConflictError(review.review_id, 'cross-domain review');
    },
    async decideCrossDomainReview(reviewId, status, decidedAt) {
      const row = await sql.get(
        `UPDATE cross_domain_reviews SET status = ?, decided_at = ?, body = ppx_json_patch(body, ?::json)
         WHERE review_id = ? AND status = 'pending' RETURNING body`,
        status,
        decidedAt,
        toJson({ status, decided_at: decidedAt }),
        reviewId,
      );
      return bodyOf<CrossDomainReviewRecord>(row);
    },
  };
}
