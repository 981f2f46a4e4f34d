import type { ConsentReceiptRecord } from '../../model/consent-receipt.ts';
import { RECEIPT_LIST_LIMIT } from '../consent-receipts.ts';
import type { ConsentReceiptArea } from '../query-areas.ts';
import { body, bodyOf, toJson } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { Sql } from './sql.ts';

/** Signed consent receipts (migration 0012; the SQLite side's consent-receipt-queries.ts). */
export function consentReceiptQueries(sql: Sql): ConsentReceiptArea {
  return {
    async getConsentReceipt(receiptId) {
      return bodyOf<ConsentReceiptRecord>(
        await sql.get('SELECT body FROM consent_receipts WHERE receipt_id = ?', receiptId),
      );
    },
    async listConsentReceiptsBySubject(subjectId) {
      const rows = await sql.all(
        'SELECT body FROM consent_receipts WHERE subject_id = ? ORDER BY issued_at DESC, receipt_id DESC LIMIT ?',
        subjectId,
        RECEIPT_LIST_LIMIT,
      );
      return rows.map((row) => body<ConsentReceiptRecord>(row));
    },
    async findConsentReceipt(grantId, decisions) {
      if (decisions.length === 0) return undefined;
      const marks = decisions.map(() => '?').join(', ');
      return bodyOf<ConsentReceiptRecord>(
        await sql.get(
          `SELECT body FROM consent_receipts WHERE grant_id = ? AND decision IN (${marks}) ORDER BY issued_at DESC, receipt_id DESC LIMIT 1`,
          grantId,
          ...decisions,
        ),
      );
    },
    async insertConsentReceipt(r) {
      const added = await sql.run(
        `INSERT INTO consent_receipts (receipt_id, subject_id, grant_id, decision, issued_at, body)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (receipt_id) DO NOTHING`,
        r.receipt_id,
        r.subject_id,
        r.grant_id ?? null,
        r.decision,
        r.issued_at,
        toJson(r),
      );
      if (added === 0) throw new IdConflictError(r.receipt_id, 'consent receipt');
    },
  };
}
