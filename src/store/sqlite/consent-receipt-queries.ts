import type { ConsentReceiptRecord } from '../../model/consent-receipt.ts';
import { RECEIPT_LIST_LIMIT } from '../consent-receipts.ts';
import type { ConsentReceiptArea, Sync } from '../query-areas.ts';
import { body, bodyOf, toJson } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { StatementCache } from './statement-cache.ts';

/** Signed consent receipts (migration 0017) as synchronous SQL; the record is the `body`. */
export function consentReceiptQueries(sql: StatementCache): Sync<ConsentReceiptArea> {
  return {
    getConsentReceipt(receiptId) {
      return bodyOf<ConsentReceiptRecord>(
        sql.get('SELECT body FROM consent_receipts WHERE receipt_id = ?').get(receiptId),
      );
    },
    listConsentReceiptsBySubject(subjectId) {
      return sql
        .get(
          'SELECT body FROM consent_receipts WHERE subject_id = ? ORDER BY issued_at DESC, receipt_id DESC LIMIT ?',
        )
        .all(subjectId, RECEIPT_LIST_LIMIT)
        .map((row) => body<ConsentReceiptRecord>(row));
    },
    findConsentReceipt(grantId, decisions) {
      if (decisions.length === 0) return undefined;
      const marks = decisions.map(() => '?').join(', ');
      return bodyOf<ConsentReceiptRecord>(
        sql
          .get(
            `SELECT body FROM consent_receipts WHERE grant_id = ? AND decision IN (${marks}) ORDER BY issued_at DESC, receipt_id DESC LIMIT 1`,
          )
          .get(grantId, ...decisions),
      );
    },
    insertConsentReceipt(r) {
      const result = sql
        .get(
          `INSERT INTO consent_receipts (receipt_id, subject_id, grant_id, decision, issued_at, body)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (receipt_id) DO NOTHING`,
        )
        .run(r.receipt_id, r.subject_id, r.grant_id ?? null, r.decision, r.issued_at, toJson(r));
      if (Number(result.changes) === 0) throw new IdConflictError(r.receipt_id, 'consent receipt');
    },
  };
}
