import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChangeDraft } from '../../../src/model/change-event.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import type { Caller } from '../../../src/operations/callers/caller.ts';
import { approveGrantRequest, rejectGrantRequest } from '../../../src/operations/consent/decide.ts';
import { ConsentRequestInput, requestConsent } from '../../../src/operations/consent/request.ts';
import { approveCrossDomainReview } from '../../../src/operations/cross-domain/reviews.ts';
import type { Deps } from '../../../src/operations/deps.ts';
import { createGrant, revokeConsentGrant } from '../../../src/operations/grants/consent-grants.ts';
import { getEffectiveProfile } from '../../../src/operations/reads/effective-query-summary.ts';
import { confirmUpdates } from '../../../src/operations/writeback/confirm.ts';
import { deleteClaim } from '../../../src/operations/writeback/delete.ts';
import { proposeUpdates } from '../../../src/operations/writeback/propose.ts';
import { setSensitiveKeys } from '../../../src/operations/writeback/sensitive-keys.ts';
import type { StoreTx } from '../../../src/store/store.ts';
import { pkce, requestBody } from '../../support/consent-flow.ts';
import { travelGrant } from '../../support/cross-domain.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { proposed, WRITE_GRANT } from '../../support/writeback.ts';

// A write and its change event commit together: every operation that announces a change does so
// in the one transaction that makes the write, and never as a second commit before or after it
// (the outbox row is one more INSERT in the write's own transaction). Each operation runs here on
// a Deps whose store counts its transactions and where each outbox row was appended.

interface Ledger {
  transactions: number;
  /** Outbox rows appended, per transaction (by its position). */
  appended: number[];
}

function counting(deps: Deps): { deps: Deps; ledger: Ledger } {
  const ledger: Ledger = { transactions: 0, appended: [] };
  const store = deps.store;
  const counted: Deps['store'] = {
    ...store,
    transaction: (fn) => {
      const index = ledger.transactions++;
      ledger.appended[index] = 0;
      return store.transaction((tx) =>
        fn({
          ...tx,
          appendChange: (draft: ChangeDraft) => {
            ledger.appended[index]! += 1;
            return tx.appendChange(draft);
          },
        } satisfies StoreTx),
      );
    },
  };
  // Anything appended outside a transaction would be a second commit of its own.
  Object.assign(counted, {
    appendChange: () => {
      throw new Error('a change event appended outside the transaction of its write');
    },
  });
  return { deps: { ...deps, store: counted }, ledger };
}

describe('a write and its change event commit once, together', () => {
  let p: TestProvider;
  let subject: Caller;
  before(async () => {
    p = await startTestProvider();
    subject = { kind: 'subject', subjectId: p.subjectId };
  });
  after(() => p.close());

  /** Runs one operation on a counting Deps: one transaction, holding every event it announced. */
  async function once(what: string, run: (deps: Deps) => Promise<{ ok: boolean }>): Promise<void> {
    const before = await p.store.latestChangeSeq();
    const { deps, ledger } = counting(p.deps);
    const r = await run(deps);
    assert.ok(r.ok, `${what}: ${JSON.stringify(r)}`);
    const announced = (await p.store.listChanges({ after: before, limit: 100 })).length;
    assert.ok(announced > 0, `${what} announced nothing`);
    assert.equal(ledger.transactions, 1, `${what}: ${ledger.transactions} transactions`);
    assert.equal(ledger.appended[0], announced, `${what}: every event in the write's own transaction`);
  }

  const grantOf = async (draft = {}) => {
    const g = await p.grant(draft);
    return { kind: 'grant', clientId: g.grant.grantee_id, grant: g.grant } as Caller & { kind: 'grant' };
  };

  it('creating, revoking and deciding grants', async () => {
    await once('createGrant', (deps) =>
      createGrant(
        deps,
        {
          subject_id: p.subjectId,
          client_id: 'fragrance-demo',
          purposes: ['recommendation'],
          allowed_domains: ['fragrance'],
          allowed_namespaces: ['core'],
          allowed_operations: ['read'],
        },
        'operator',
      ),
    );
    const g = await grantOf();
    await once('revokeConsentGrant', (deps) =>
      revokeConsentGrant(deps, subject, { grant_id: g.grant.grant_id }),
    );
    const ask = async () => {
      const r = await requestConsent(p.deps, ConsentRequestInput.parse(requestBody(p, pkce().challenge)));
      assert.ok(r.ok);
      return r.value.grant_request_id;
    };
    await once('requestConsent', (deps) =>
      requestConsent(deps, ConsentRequestInput.parse(requestBody(p, pkce().challenge))),
    );
    const a = await ask();
    await once('approveGrantRequest', (deps) => approveGrantRequest(deps, subject, { grant_request_id: a }));
    const b = await ask();
    await once('rejectGrantRequest', (deps) => rejectGrantRequest(deps, subject, { grant_request_id: b }));
  });

  it('writing, proposing, confirming and deleting claims, and the sensitive keys', async () => {
    await once('proposeUpdates (the subject)', (deps) =>
      proposeUpdates(deps, subject, { claims: [proposed('core', 'risk_tolerance', 0.37)] }),
    );
    const writer = await grantOf(WRITE_GRANT);
    let proposalId = '';
    await once('proposeUpdates (queued)', async (deps) => {
      const r = await proposeUpdates(deps, writer, { claims: [proposed('core', 'novelty_tolerance', 0.33)] });
      proposalId = r.ok ? (r.value.proposals?.[0]?.proposal_id ?? '') : '';
      return r;
    });
    await once('confirmUpdates', (deps) =>
      confirmUpdates(deps, subject, { decisions: [{ proposal_id: proposalId, action: 'confirm' }] }),
    );
    const own = await proposeUpdates(p.deps, subject, {
      claims: [proposed('travel', 'outdoor_activity_preference', 0.6)],
    });
    assert.ok(own.ok);
    await once('deleteClaim', (deps) =>
      deleteClaim(deps, subject, { claim_id: own.value.claims[0]!.claim_id }),
    );
    await once('setSensitiveKeys', (deps) =>
      setSensitiveKeys(deps, subject, { sensitive_keys: ['risk_tolerance'] }),
    );
  });

  it('reviews, accounts and an expiry found on read', async () => {
    const { grant } = await travelGrant(p, 'allow_with_review');
    const reader: Caller = { kind: 'grant', clientId: grant.grantee_id, grant };
    let reviewId = '';
    await once('a read that asks for a review', async (deps) => {
      const r = await getEffectiveProfile(deps, reader, {});
      reviewId = r.ok
        ? ((r.value.cross_domain_review as { review_id?: string } | undefined)?.review_id ?? '')
        : '';
      return r;
    });
    await once('approveCrossDomainReview', (deps) =>
      approveCrossDomainReview(deps, subject, { review_id: reviewId }),
    );
    await once('createSubject', (deps) =>
      createSubject(deps, { username: 'one-commit', password: 'one-commit-password' }),
    );
  });
});
