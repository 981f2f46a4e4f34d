import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decide, effective, travelGrant } from '../../../support/cross-domain.ts';
import { assertError, sorted } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// Audit filters `grantee` and `kind`, and the audit entries of cross-domain reviews.

interface Event {
  actor: { kind: string; id: string };
  grant_id?: string;
  action: string;
  claim_keys: string[];
  detail?: string;
  subject_id: string;
}

describe('audit of cross-domain reviews, filtered by grantee and kind', () => {
  let p: TestProvider;
  let travel: { grantId: string; token: string; reviewId: string };
  let fragranceToken: string;
  before(async () => {
    p = await startTestProvider();
    const g = await travelGrant(p, 'allow_with_review');
    const first = await effective(p, g.token);
    const reviewId = first.json.cross_domain_review.review_id;
    assert.equal((await decide(p, 'approve', { review_id: reviewId })).status, 200);
    await effective(p, g.token);
    travel = { grantId: g.grant.grant_id, token: g.token, reviewId };
    fragranceToken = (await p.grant()).token;
    await effective(p, fragranceToken);
  });
  after(() => p.close());

  const events = async (token: string, qs: string): Promise<Event[]> => {
    const r = await api(p.url, `/v1/audit/events${qs}`, { token });
    assert.equal(r.status, 200, r.text);
    return r.json.events;
  };

  it('records the review request (grantee) and the decision (subject)', async () => {
    const requested = await events(p.subjectToken, '?kind=cross_domain_review_requested');
    assert.equal(requested.length, 1);
    assert.deepEqual(requested[0]!.actor, { kind: 'grantee', id: 'travel-demo' });
    assert.equal(requested[0]!.grant_id, travel.grantId);
    assert.deepEqual(requested[0]!.claim_keys, []);
    assert.equal(requested[0]!.detail, `${travel.reviewId}: fragrance -> travel`);

    const approved = await events(p.subjectToken, '?action=cross_domain_approved');
    assert.equal(approved.length, 1);
    assert.deepEqual(approved[0]!.actor, { kind: 'subject', id: p.subjectId });
    assert.equal(approved[0]!.grant_id, travel.grantId);
    assert.deepEqual(approved[0]!.claim_keys, [
      'novelty_tolerance',
      'sensory_intensity_preference',
      'social_energy_preference',
    ]);
  });

  it('audits the reads with the core keys returned, never a fragrance key', async () => {
    const reads = await events(
      p.subjectToken,
      `?grant_id=${encodeURIComponent(travel.grantId)}&kind=effective`,
    );
    assert.equal(reads.length, 2);
    for (const e of reads)
      assert.ok(
        e.claim_keys.every((k) => !k.startsWith('fragrance.')),
        e.claim_keys.join(),
      );
    assert.ok(reads[1]!.claim_keys.filter((k) => k === 'novelty_tolerance').length === 2);
  });

  it('grantee filter: the subject sees only that actor; kind narrows further', async () => {
    const travelEvents = await events(p.subjectToken, '?grantee=travel-demo');
    assert.ok(travelEvents.length >= 3);
    assert.ok(travelEvents.every((e) => e.actor.id === 'travel-demo'));
    const fragranceReads = await events(p.subjectToken, '?grantee=fragrance-demo&kind=effective');
    assert.equal(fragranceReads.length, 1);
    const own = await events(p.subjectToken, `?grantee=${encodeURIComponent(p.subjectId)}`);
    assert.deepEqual(sorted([...new Set(own.map((e) => e.action))]), ['cross_domain_approved']);
    assert.deepEqual(await events(p.subjectToken, '?grantee=nobody'), []);
  });

  it('a grantee sees only its own events, whatever grantee it names', async () => {
    const mine = await events(travel.token, '?grantee=travel-demo');
    assert.ok(mine.length >= 3);
    assert.ok(mine.every((e) => e.actor.id === 'travel-demo' && e.grant_id === travel.grantId));
    assert.ok(mine.every((e) => e.subject_id !== p.subjectId));
    assert.deepEqual(await events(travel.token, '?grantee=fragrance-demo'), []);
    assert.deepEqual(await events(travel.token, '?kind=cross_domain_approved'), []);
    assert.equal((await events(travel.token, '?kind=cross_domain_review_requested')).length, 1);
  });

  it('bad filters are 400 invalid_request', async () => {
    const token = p.subjectToken;
    assertError(await api(p.url, '/v1/audit/events?kind=nonsense', { token }), 400, 'invalid_request');
    assertError(
      await api(p.url, '/v1/audit/events?kind=read&action=query', { token }),
      400,
      'invalid_request',
    );
    assertError(await api(p.url, '/v1/audit/events?grantee=', { token }), 400, 'invalid_request');
    const same = await api(p.url, '/v1/audit/events?kind=effective&action=effective', { token });
    assert.equal(same.status, 200);
  });
});
