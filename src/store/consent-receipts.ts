import type { ConsentReceiptRecord, ReceiptDecision } from '../model/consent-receipt.ts';

// Signed consent receipts (docs/receipts.md; SQLite migration 0017, PostgreSQL 0012): one row per
// decision about a grant (approved, narrowed, rejected, revoked, expired), written in the same
// transaction as the decision. A receipt is a record the person keeps, like the audit log: it is
// moved by `ppx migrate` (transfer/tables.ts) and outlives the grant and the profile. StoreReader
// and StoreWriter in store.ts extend these interfaces; the conventions stated there hold here too.

/** The most receipts one listing gives (newest first). */
export const RECEIPT_LIST_LIMIT = 500;

export interface ConsentReceiptReader {
  /** A receipt by id, or undefined. The caller checks whose it is. */
  getConsentReceipt(receiptId: string): Promise<ConsentReceiptRecord | undefined>;
  /**
   * A subject's receipts, newest `issued_at` first (ties by receipt_id, descending), at most
   * RECEIPT_LIST_LIMIT; empty for none.
   */
  listConsentReceiptsBySubject(subjectId: string): Promise<readonly ConsentReceiptRecord[]>;
  /** The newest receipt of a grant with one of `decisions`, or undefined. */
  findConsentReceipt(
    grantId: string,
    decisions: readonly ReceiptDecision[],
  ): Promise<ConsentReceiptRecord | undefined>;
}

export interface ConsentReceiptWriter {
  /** Stores a receipt; a receipt id already stored throws IdConflictError. */
  insertConsentReceipt(receipt: ConsentReceiptRecord): Promise<void>;
}
