import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newReviewId } from '../../../../src/operations/cross-domain/transfer.ts';
import { decide, effective, pendingReviews, travelGrant } from '../../../support/cross-domain.ts';
import { assertError } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// The subject's review endpoints: who may call them and what bad input gets.

describe('cross-domain review endpoints', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  /** A fresh pending review on a new allow_with_review grant. */
  async function pending() {
    const g = await travelGrant(p, 'allow_with_review');
    const r = await effective(p, g.token);
    return { ...g, reviewId: r.json.cross_domain_review.review_id as string };
  }

  it('a grant token may not list, approve or reject reviews (403 access_denied)', async () => {
    const { token, reviewId, grant } = await pending();
    assertError(await api(p.url, '/v1/consent/cross-domain/reviews', { token }), 403, 'access_denied');
    assertError(await decide(p, 'approve', { review_id: reviewId }, token), 403, 'access_denied');
    assertError(await decide(p, 'reject', { review_id: reviewId }, token), 403, 'access_denied');
    assert.equal((await pendingReviews(p, grant.grant_id))[0]?.status, 'pending');
  });

  it('without a token: 401', async () => {
    const r = await api(p.url, '/v1/consent/cross-domain/approve', { body: { review_id: 'x' } });
    assertError(r, 401, 'invalid_token');
  });

  it("another subject's review, or a missing one, is 404 and stays untouched", async () => {
    const grant = await travelGrant(p, 'allow_with_review');
    const foreign = {
      review_id: newReviewId(),
      grant_id: grant.grant.grant_id,
      grantee_id: 'travel-demo',
      subject_id: 'did:example:someone-else',
      source_domains: ['fragrance'],
      target_domain: 'travel',
      status: 'pending' as const,
      mapped_keys: ['novelty_tolerance'],
      created_at: new Date().toISOString(),
    };
    await p.store.insertCrossDomainReview(foreign);
    assertError(await decide(p, 'approve', { review_id: foreign.review_id }), 404, 'not_found');
    assertError(await decide(p, 'reject', { review_id: 'ppx:review:missing' }), 404, 'not_found');
    assert.equal((await p.deps.store.getCrossDomainReview(foreign.review_id))?.status, 'pending');
    assert.ok(!(await pendingReviews(p)).some((r) => r.review_id === foreign.review_id));
  });

  it('deciding twice is 409 conflict, whichever way', async () => {
    const { reviewId } = await pending();
    assert.equal((await decide(p, 'approve', { review_id: reviewId })).status, 200);
    assertError(await decide(p, 'approve', { review_id: reviewId }), 409, 'conflict');
    assertError(await decide(p, 'reject', { review_id: reviewId }), 409, 'conflict');
  });

  it('malformed bodies and queries are 400 invalid_request', async () => {
    for (const body of [{}, { review_id: '' }, { review_id: 42 }, { review_id: 'x', extra: 1 }, []]) {
      assertError(await decide(p, 'approve', body), 400, 'invalid_request');
    }
    assertError(await decide(p, 'reject', '{"review_id":'), 400, 'invalid_request');
    const badStatus = await api(p.url, '/v1/consent/cross-domain/reviews?status=maybe', {
      token: p.subjectToken,
    });
    assertError(badStatus, 400, 'invalid_request');
  });

  it('lists by status; concurrent first reads create one review', async () => {
    const g = await travelGrant(p, 'allow_with_review');
    const reads = await Promise.all(Array.from({ length: 6 }, () => effective(p, g.token)));
    const ids = new Set(reads.map((r) => r.json.cross_domain_review.review_id));
    assert.equal(ids.size, 1);
    assert.equal((await pendingReviews(p, g.grant.grant_id)).length, 1);
    const [id] = ids;
    await decide(p, 'reject', { review_id: id });
    const rejected = await api(p.url, '/v1/consent/cross-domain/reviews?status=rejected', {
      token: p.subjectToken,
    });
    assert.ok(rejected.json.reviews.some((r: { review_id: string }) => r.review_id === id));
    const all = await api(p.url, '/v1/consent/cross-domain/reviews?status=all', { token: p.subjectToken });
    assert.ok(all.json.reviews.length >= rejected.json.reviews.length);
  });

  it('the review applies to its own grant only: a second grant asks again', async () => {
    const first = await pending();
    await decide(p, 'approve', { review_id: first.reviewId });
    const second = await travelGrant(p, 'allow_with_review');
    const r = await effective(p, second.token);
    assert.equal(r.json.cross_domain_review.status, 'pending');
    assert.notEqual(r.json.cross_domain_review.review_id, first.reviewId);
    assert.ok(r.json.claims.every((c: { claim_id: string }) => !c.claim_id.startsWith('ppx:claim:mapped-')));
  });
});
