import type { SQLInputValue } from 'node:sqlite';
import type { CrossDomainReviewRecord, CrossDomainReviewStatus } from '../../model/cross-domain-review.ts';
import { IdConflictError } from '../store.ts';
import { AuditQueries } from './audit-queries.ts';
import { body, type StatementCache, toJson } from './rows.ts';

const ORDER = 'ORDER BY created_at, review_id';

/**
 * Cross-domain transfer reviews (migration 0006) as synchronous SQL; SqliteQueries inherits them.
 * The decision is a compare-and-set on `status` in the UPDATE's own WHERE clause, so it stays
 * correct without the in-process write mutex, and rewrites `body` with json_set in the same
 * statement so the record never disagrees with its columns.
 */
export class ReviewQueries extends AuditQueries {
  readonly #sql: StatementCache;

  constructor(sql: StatementCache) {
    super(sql);
    this.#sql = sql;
  }

  #all(sql: string, ...params: SQLInputValue[]): CrossDomainReviewRecord[] {
    return this.#sql
      .get(sql)
      .all(...params)
      .map((row) => body<CrossDomainReviewRecord>(row));
  }

  getCrossDomainReview(reviewId: string): CrossDomainReviewRecord | undefined {
    const row = this.#sql.get('SELECT body FROM cross_domain_reviews WHERE review_id = ?').get(reviewId);
    return row === undefined ? undefined : body<CrossDomainReviewRecord>(row);
  }

  listCrossDomainReviewsByGrant(grantId: string): CrossDomainReviewRecord[] {
    return this.#all(`SELECT body FROM cross_domain_reviews WHERE grant_id = ? ${ORDER}`, grantId);
  }

  listCrossDomainReviewsBySubject(
    subjectId: string,
    status?: CrossDomainReviewStatus,
  ): CrossDomainReviewRecord[] {
    return status === undefined
      ? this.#all(`SELECT body FROM cross_domain_reviews WHERE subject_id = ? ${ORDER}`, subjectId)
      : this.#all(
          `SELECT body FROM cross_domain_reviews WHERE subject_id = ? AND status = ? ${ORDER}`,
          subjectId,
          status,
        );
  }

  insertCrossDomainReview(review: CrossDomainReviewRecord): void {
    const result = this.#sql
      .get(
        `INSERT INTO cross_domain_reviews (review_id, grant_id, subject_id, source_domains, target_domain,
           status, created_at, decided_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (review_id) DO NOTHING`,
      )
      .run(
        review.review_id,
        review.grant_id,
        review.subject_id,
        toJson([...review.source_domains].sort()),
        review.target_domain,
        review.status,
        review.created_at,
        review.decided_at ?? null,
        toJson(review),
      );
    if (Number(result.changes) === 0) throw new IdConflictError(review.review_id, 'cross-domain review');
  }

  decideCrossDomainReview(
    reviewId: string,
    status: 'approved' | 'rejected',
    decidedAt: string,
  ): CrossDomainReviewRecord | undefined {
    const row = this.#sql
      .get(
        `UPDATE cross_domain_reviews SET status = ?, decided_at = ?,
           body = json_set(body, '$.status', ?, '$.decided_at', ?)
         WHERE review_id = ? AND status = 'pending' RETURNING body`,
      )
      .get(status, decidedAt, status, decidedAt, reviewId);
    return row === undefined ? undefined : body<CrossDomainReviewRecord>(row);
  }
}
