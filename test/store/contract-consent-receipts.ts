import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ConsentReceiptRecord } from '../../src/model/consent-receipt.ts';
import { IdConflictError, type Store } from '../../src/store/store.ts';
import { at, withStore } from '../support/store-records.ts';

// Store contract for signed consent receipts (docs/receipts.md): kept by subject, newest first,
// found by grant and decision, an id stored once.

function receipt(over: Partial<ConsentReceiptRecord> = {}): ConsentReceiptRecord {
  return {
    receipt_id: `rcpt_${randomUUID()}`,
    subject_id: 'subject-a',
    client_id: 'client-a',
    grant_id: 'ppx:grant:g1',
    decision: 'approved',
    issued_at: at(1),
    jws: 'e30.e30.sig',
    ...over,
  };
}

export function consentReceiptContract(open: () => Promise<Store>): void {
  describe('consent receipts', () => {
    it(
      'lists a subject’s receipts newest first, finds one by id and by grant, and refuses an id twice',
      withStore(open, async (store) => {
        const s = `subject-${randomUUID()}`;
        const approved = receipt({ subject_id: s, issued_at: at(1) });
        const refused = receipt({ subject_id: s, decision: 'rejected', issued_at: at(2) });
        delete (refused as { grant_id?: string }).grant_id;
        const revoked = receipt({ subject_id: s, decision: 'revoked', issued_at: at(3) });
        const other = receipt({ subject_id: `other-${randomUUID()}`, grant_id: 'ppx:grant:g2' });
        for (const r of [approved, refused, revoked, other]) await store.insertConsentReceipt(r);
        assert.deepEqual(await store.listConsentReceiptsBySubject(s), [revoked, refused, approved]);
        assert.deepEqual(await store.getConsentReceipt(refused.receipt_id), refused);
        assert.equal(await store.getConsentReceipt('rcpt_missing'), undefined);
        assert.deepEqual(await store.findConsentReceipt('ppx:grant:g1', ['approved', 'narrowed']), approved);
        assert.deepEqual(await store.findConsentReceipt('ppx:grant:g1', ['approved', 'revoked']), revoked);
        assert.equal(await store.findConsentReceipt('ppx:grant:none', ['approved']), undefined);
        assert.equal(await store.findConsentReceipt('ppx:grant:g1', []), undefined);
        await assert.rejects(store.insertConsentReceipt({ ...approved, subject_id: 'x' }), IdConflictError);
        assert.deepEqual(await store.listConsentReceiptsBySubject('nobody'), []);
      }),
    );
  });
}
