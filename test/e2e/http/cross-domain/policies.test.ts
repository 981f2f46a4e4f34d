import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  assertNoRawFragrance,
  decide,
  effective,
  pendingReviews,
  travelGrant,
} from '../../../support/cross-domain.ts';
import { CORE_KEYS, FRAGRANCE_KEYS, keysOf, sorted } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// A travel agent reads a profile whose fragrance claims are cross-domain for it, under each of
// the four `cross_domain_transfer` values (SPEC §6.5, §13.2; docs/cross-domain.md).

const MAPPED = [
  // [core key, mapped value, confidence] from the demo's fragrance claims
  ['novelty_tolerance', 0.7, 0.568],
  ['sensory_intensity_preference', 0.5, 0.64],
  ['social_energy_preference', 0.5, 0.496],
] as const;

describe('cross-domain reads under each policy', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  /** The claim keys of each `effective` read audited for the grant, in order. */
  async function auditedReads(grantId: string): Promise<string[][]> {
    const qs = `?grant_id=${encodeURIComponent(grantId)}&action=effective`;
    const r = await api(p.url, `/v1/audit/events${qs}`, { token: p.subjectToken });
    assert.equal(r.status, 200, r.text);
    return r.json.events.map((e: { claim_keys: string[] }) => [...e.claim_keys].sort());
  }

  it('deny: fragrance claims omitted, no mapped trait, no review created', async () => {
    const { grant, token } = await travelGrant(p, 'deny');
    const r = await effective(p, token);
    assert.deepEqual(keysOf(r.json), sorted(CORE_KEYS));
    assert.equal(r.json.cross_domain_review, undefined);
    assertNoRawFragrance(r);
    assert.deepEqual(await pendingReviews(p, grant.grant_id), []);
    // The read is audited with the keys it returned; a withheld fragrance key is not among them
    // (the audit says what the grantee got, not what it was refused).
    const audited = await auditedReads(grant.grant_id);
    assert.deepEqual(audited, [sorted(CORE_KEYS)]);
    assert.deepEqual(
      audited.flat().filter((k) => k.startsWith('fragrance.')),
      [],
    );
  });

  it('allow_with_review: pending first, mapped core traits only after approval', async () => {
    const { grant, token } = await travelGrant(p, 'allow_with_review');
    const first = await effective(p, token);
    assert.deepEqual(keysOf(first.json), sorted(CORE_KEYS));
    assertNoRawFragrance(first);
    const notice = first.json.cross_domain_review;
    assert.equal(notice.status, 'pending');
    assert.deepEqual(Object.keys(notice).sort(), ['review_id', 'status']);

    const pending = await pendingReviews(p, grant.grant_id);
    assert.equal(pending.length, 1);
    assert.deepEqual(pending[0], {
      ...pending[0],
      review_id: notice.review_id,
      grant_id: grant.grant_id,
      grantee_id: 'travel-demo',
      source_domains: ['fragrance'],
      target_domain: 'travel',
      mapped_keys: MAPPED.map(([k]) => k),
      status: 'pending',
    });
    // a second read before the decision reuses the same review
    const second = await effective(p, token);
    assert.deepEqual(second.json.cross_domain_review, notice);
    assert.equal((await pendingReviews(p, grant.grant_id)).length, 1);

    const approved = await decide(p, 'approve', { review_id: notice.review_id });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.review.status, 'approved');
    assert.ok(approved.json.review.decided_at);

    const after = await effective(p, token);
    assertNoRawFragrance(after);
    assert.deepEqual(after.json.cross_domain_review, { review_id: notice.review_id, status: 'approved' });
    const mapped = after.json.claims.filter((c: { source: { kind: string; origin?: string } }) =>
      c.source.origin?.startsWith('ppx-trait-map/'),
    );
    assert.deepEqual(
      mapped.map((c: { key: string; value: number; confidence: number }) => [c.key, c.value, c.confidence]),
      MAPPED,
    );
    for (const c of mapped) {
      assert.equal(c.namespace, 'core');
      assert.equal(c.source.kind, 'derived_aggregate');
      assert.match(c.claim_id, /^ppx:claim:mapped-/);
    }
    assert.equal(after.json.claims.length, CORE_KEYS.length + MAPPED.length);
    assert.deepEqual(await pendingReviews(p, grant.grant_id), []);

    // a query and the summary see the same traits, and still no raw claim
    const query = await api(p.url, '/v1/profile/query', {
      token,
      body: { provenance: ['derived_aggregate'] },
    });
    assert.equal(query.status, 200, query.text);
    assertNoRawFragrance(query);
    assert.deepEqual(keysOf(query.json), sorted(['ambiguity_tolerance', ...MAPPED.map(([k]) => k)]));
    const summary = await api(p.url, '/v1/profile/summary', { token });
    assert.equal(summary.status, 200, summary.text);
    assert.deepEqual(keysOf(summary.json), keysOf(after.json));
  });

  it('allow_with_review, rejected: the mapped traits never appear and no new review is asked', async () => {
    const { grant, token } = await travelGrant(p, 'allow_with_review');
    const first = await effective(p, token);
    const id = first.json.cross_domain_review.review_id;
    const rejected = await decide(p, 'reject', { review_id: id });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.json.review.status, 'rejected');
    for (let i = 0; i < 2; i++) {
      const r = await effective(p, token);
      assert.deepEqual(keysOf(r.json), sorted(CORE_KEYS));
      assertNoRawFragrance(r);
      assert.deepEqual(r.json.cross_domain_review, { review_id: id, status: 'rejected' });
    }
    assert.deepEqual(await pendingReviews(p, grant.grant_id), []);
  });

  it('allow_if_same_provider: fragrance claims pass except imported ones; no review', async () => {
    const { grant, token } = await travelGrant(p, 'allow_if_same_provider');
    const r = await effective(p, token);
    const expected = FRAGRANCE_KEYS.filter((k) => k !== 'fragrance.occasion_bias');
    assert.deepEqual(keysOf(r.json), sorted([...CORE_KEYS, ...expected]));
    assert.equal(r.json.cross_domain_review, undefined);
    assert.deepEqual(await pendingReviews(p, grant.grant_id), []);
    // audited with what passed: the fragrance keys, but not the imported one that was held back
    assert.deepEqual(await auditedReads(grant.grant_id), [sorted([...CORE_KEYS, ...expected])]);
  });

  it('allow: every fragrance claim passes; no review', async () => {
    const { grant, token } = await travelGrant(p, 'allow');
    const r = await effective(p, token);
    assert.deepEqual(keysOf(r.json), sorted([...CORE_KEYS, ...FRAGRANCE_KEYS]));
    assert.equal(r.json.cross_domain_review, undefined);
    assert.deepEqual(await pendingReviews(p, grant.grant_id), []);
    assert.deepEqual(await auditedReads(grant.grant_id), [sorted([...CORE_KEYS, ...FRAGRANCE_KEYS])]);
  });

  it('the subject reading their own profile is unaffected by any review', async () => {
    const r = await effective(p, p.subjectToken);
    assert.equal(r.json.cross_domain_review, undefined);
    assert.ok(r.json.claims.every((c: { claim_id: string }) => !c.claim_id.startsWith('ppx:claim:mapped-')));
  });
});
