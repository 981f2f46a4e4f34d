import type { ConsentReceiptClaims, ConsentReceiptRecord } from '../../model/consent-receipt.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { announceIfExpired } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { readClaims } from './receipts.ts';

// The person's own receipts (docs/receipts.md): listed and downloaded from their web app. Only the
// subject a receipt is about sees it; any other id, someone else's or none, is the same not found.

export interface ShownReceipt {
  readonly receipt_id: string;
  readonly issued_at: string;
  readonly claims: ConsentReceiptClaims;
}

/**
 * The subject's receipts, newest first. A grant past its expiry that nobody has noticed yet gets
 * its `expired` receipt now (changes.ts#announceIfExpired), so the list is never behind the clock.
 */
export async function listOwnReceipts(deps: Deps, subjectId: string): Promise<ShownReceipt[]> {
  const now = deps.clock();
  for (const g of await deps.store.listGrantsBySubject(subjectId)) await announceIfExpired(deps, g, now);
  const records = await deps.store.listConsentReceiptsBySubject(subjectId);
  return records.flatMap((r) => {
    const claims = readClaims(r.jws);
    return claims ? [{ receipt_id: r.receipt_id, issued_at: r.issued_at, claims }] : [];
  });
}

/** One of the subject's receipts, to download. */
export async function ownReceipt(
  deps: Deps,
  subjectId: string,
  receiptId: string,
): Promise<Result<ConsentReceiptRecord>> {
  const found = receiptId.length <= 200 ? await deps.store.getConsentReceipt(receiptId) : undefined;
  if (!found || found.subject_id !== subjectId)
    return fail('not_found', 'there is no receipt with this id for you');
  return ok(found);
}
