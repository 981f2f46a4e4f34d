import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantDraft } from '../../../src/operations/grants/consent-grants.ts';
import { approve, ask, exchange, granted, refresh, reject } from '../../support/consent-flow.ts';
import { decide, effective, travelGrant } from '../../support/cross-domain.ts';
import { assertError } from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { confirm, propose, proposed, WRITE_GRANT } from '../../support/writeback.ts';
import { type Watch, watch } from './helpers.ts';

// Every kind of write the HTTP API makes announces its change event: it is delivered to a
// subscriber of the provider's change feed by the time the response arrives, and its outbox row
// is in the database. A write that fails or rolls back announces nothing.

describe('change events of HTTP API writes', () => {
  let p: TestProvider;
  let w: Watch;
  before(async () => {
    p = await startTestProvider();
    w = await watch(p);
  });
  after(async () => {
    w.close();
    await p.close();
  });

  /** A grant made by the operator (mint), with its grant_created event consumed. */
  async function newGrant(draft: Partial<GrantDraft> = {}) {
    const g = await p.grant(draft);
    const id = g.grant.grant_id;
    await w.expect({ kind: 'grant_created', ids: { grant_ids: [id] }, grants: [id] });
    return { ...g, id };
  }

  function del(path: string) {
    return api(p.url, path, { method: 'DELETE', token: p.subjectToken });
  }

  it('a subject writing claims: claims_written, naming the grants that may see the namespace', async () => {
    const fragrance = await newGrant();
    const travel = await newGrant({
      client_id: 'travel-demo',
      allowed_domains: ['travel'],
      allowed_namespaces: ['core', 'travel'],
    });
    // A value no id or time can hold by chance (a time's "…:40.3…" held 0.3 once).
    const r = await propose(p, p.subjectToken, [proposed('fragrance', 'freshness_preference', 0.271828)]);
    assert.equal(r.status, 200, r.text);
    const [event] = await w.expect({
      kind: 'claims_written',
      ids: { claim_ids: [r.json.claims[0].claim_id], namespaces: ['fragrance'] },
      grantsInclude: [fragrance.id],
    });
    assert.ok(!event!.grants.includes(travel.id), 'a grant without the namespace is not named');
    assert.ok(!JSON.stringify(event).includes('271828'), 'no claim value in the event');
  });

  let pendingIds: string[] = [];
  let reviewGrant = '';

  it("a grantee's proposal under review_required: proposal_created for its grant", async () => {
    const g = await newGrant({ ...WRITE_GRANT });
    reviewGrant = g.id;
    const r = await propose(p, g.token, [
      proposed('fragrance', 'projection_tolerance', 0.4),
      proposed('core', 'risk_tolerance', 0.5),
    ]);
    assert.equal(r.status, 202, r.text);
    pendingIds = r.json.proposals.map((x: { proposal_id: string }) => x.proposal_id);
    await w.expect({
      kind: 'proposal_created',
      ids: {
        proposal_ids: pendingIds,
        claim_ids: r.json.proposals.map((x: { claim_id: string }) => x.claim_id),
        namespaces: ['fragrance', 'core'],
      },
      grants: [g.id],
    });
  });

  it('a refused proposal (writeback forbidden) and an invalid one announce nothing', async () => {
    const forbidden = await newGrant({ ...WRITE_GRANT, writeback_policy: 'forbidden' });
    assertError(
      await propose(p, forbidden.token, [proposed('fragrance', 'projection_tolerance', 0.1)]),
      403,
      'writeback_forbidden',
    );
    await w.quiet();
    const r = await propose(p, p.subjectToken, [proposed('weather', 'rain_tolerance', 0.1)]);
    assert.equal(r.status, 400, r.text);
    await w.quiet();
  });

  it('confirming a proposal: claims_written and proposal_decided; deciding it again (409) nothing', async () => {
    const [first, second] = pendingIds;
    const r = await confirm(p, p.subjectToken, [{ proposal_id: first, action: 'confirm' }]);
    assert.equal(r.status, 200, r.text);
    await w.expect(
      {
        kind: 'claims_written',
        ids: { claim_ids: [r.json.claims[0].claim_id], namespaces: ['fragrance'], proposal_ids: [first!] },
        grantsInclude: [reviewGrant],
      },
      {
        kind: 'proposal_decided',
        ids: { proposal_ids: [first!], namespaces: ['fragrance'] },
        grants: [reviewGrant],
      },
    );
    assertError(
      await confirm(p, p.subjectToken, [{ proposal_id: first, action: 'reject' }]),
      409,
      'conflict',
    );
    await w.quiet();
    // A call that fails part-way rolls back the decisions before the failure, events included.
    const mixed = await confirm(p, p.subjectToken, [
      { proposal_id: second, action: 'confirm' },
      { proposal_id: 'ppx:proposal:missing', action: 'confirm' },
    ]);
    assertError(mixed, 404, 'not_found');
    await w.quiet();
    const rejected = await confirm(p, p.subjectToken, [{ proposal_id: second, action: 'reject' }]);
    assert.equal(rejected.status, 200, rejected.text);
    await w.expect({
      kind: 'proposal_decided',
      ids: { proposal_ids: [second!], namespaces: ['core'] },
      grants: [reviewGrant],
    });
  });

  it('an applied proposal (writeback allow): claims_written naming the proposal and its grant', async () => {
    const g = await newGrant({ ...WRITE_GRANT, writeback_policy: 'allow' });
    const r = await propose(p, g.token, [proposed('fragrance', 'projection_tolerance', 0.45)]);
    assert.equal(r.status, 200, r.text);
    await w.expect({
      kind: 'claims_written',
      ids: {
        claim_ids: [r.json.proposals[0].claim_id],
        namespaces: ['fragrance'],
        proposal_ids: [r.json.proposals[0].proposal_id],
      },
      grantsInclude: [g.id],
    });
  });

  it('deleting a claim, then a namespace with a pending proposal in it: claims_deleted, proposal_decided', async () => {
    const one = await del('/v1/profile/claims/ppx:claim:demo-core-risk');
    assert.equal(one.status, 200, one.text);
    await w.expect({
      kind: 'claims_deleted',
      ids: { claim_ids: ['ppx:claim:demo-core-risk'], namespaces: ['core'] },
    });
    assertError(await del('/v1/profile/claims/ppx:claim:demo-core-risk'), 404, 'not_found');
    await w.quiet();

    const g = await newGrant({
      ...WRITE_GRANT,
      client_id: 'travel-demo',
      allowed_domains: ['travel'],
      allowed_namespaces: ['core', 'travel'],
    });
    const queued = await propose(p, g.token, [proposed('travel', 'pace_preference', 0.9)]);
    assert.equal(queued.status, 202, queued.text);
    const [created] = await w.expect({ kind: 'proposal_created', grants: [g.id] });
    const r = await del('/v1/profile/namespaces/travel');
    assert.equal(r.status, 200, r.text);
    await w.expect(
      {
        kind: 'claims_deleted',
        ids: { claim_ids: r.json.deleted_claim_ids, namespaces: ['travel'] },
        grantsInclude: [g.id],
      },
      { kind: 'proposal_decided', ids: { proposal_ids: created!.ids.proposal_ids }, grants: [g.id] },
    );
  });

  it('replacing the sensitive keys: sensitive_keys_changed, naming no grant; an unknown key nothing', async () => {
    const r = await api(p.url, '/v1/profile/sensitive-keys', {
      token: p.subjectToken,
      body: { sensitive_keys: ['budget_sensitivity'] },
    });
    assert.equal(r.status, 200, r.text);
    await w.expect({ kind: 'sensitive_keys_changed', ids: {}, grants: [] });
    const bad = await api(p.url, '/v1/profile/sensitive-keys', {
      token: p.subjectToken,
      body: { sensitive_keys: ['no_such_key'] },
    });
    assertError(bad, 400, 'invalid_request');
    await w.quiet();
  });

  it('consent-v2: requested, decided (with the grant created), exchanged (nothing); a second approval nothing', async () => {
    const pending = await ask(p);
    await w.expect({ kind: 'consent_requested', ids: { grant_request_ids: [pending.id] }, grants: [] });
    const a = await approve(p, pending.id);
    assert.equal(a.status, 200, a.text);
    const grantId = a.json.grant_id as string;
    await w.expect(
      { kind: 'grant_created', ids: { grant_ids: [grantId] }, grants: [grantId] },
      {
        kind: 'consent_decided',
        ids: { grant_request_ids: [pending.id], grant_ids: [grantId] },
        grants: [grantId],
      },
    );
    assertError(await approve(p, pending.id), 409, 'conflict');
    await w.quiet();
    const t = await exchange(p, pending);
    assert.equal(t.status, 200, t.text);
    await w.quiet();

    const declined = await ask(p);
    await w.expect({ kind: 'consent_requested', ids: { grant_request_ids: [declined.id] } });
    assert.equal((await reject(p, declined.id)).status, 200);
    await w.expect({ kind: 'consent_decided', ids: { grant_request_ids: [declined.id] }, grants: [] });
    assertError(await reject(p, declined.id), 409, 'conflict');
    await w.quiet();
  });

  it('a single-use grant narrowed by its one token: grant_narrowed', async () => {
    const pending = await ask(p, { access_mode: 'single_use' });
    await w.expect({ kind: 'consent_requested' });
    const grantId = (await approve(p, pending.id)).json.grant_id as string;
    await w.expect({ kind: 'grant_created' }, { kind: 'consent_decided', grants: [grantId] });
    const t = await exchange(p, pending);
    assert.equal(t.status, 200, t.text);
    const [narrowed] = await w.expect({ kind: 'grant_narrowed', grants: [grantId] });
    assert.equal(narrowed!.ids.grant_ids?.[0], grantId);
    assert.equal(narrowed!.ids.family_ids?.length, 1);
  });

  it('revoking: grant_revoked and refresh_family_ended; revoking again nothing', async () => {
    const g = await granted(p);
    await w.expect({ kind: 'consent_requested' }, { kind: 'grant_created' }, { kind: 'consent_decided' });
    const r = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: g.grantId },
    });
    assert.equal(r.status, 200, r.text);
    const [, ended] = await w.expect(
      { kind: 'grant_revoked', ids: { grant_ids: [g.grantId] }, grants: [g.grantId] },
      { kind: 'refresh_family_ended', ids: { grant_ids: [g.grantId] }, grants: [g.grantId] },
    );
    assert.equal(ended!.ids.family_ids?.length, 1);
    const again = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: g.grantId },
    });
    assert.equal(again.status, 200, again.text);
    await w.quiet();
    assertError(
      await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: 'ppx:grant:nope' } }),
      404,
      'not_found',
    );
    await w.quiet();
  });

  it('a refresh rotates silently; a rotated token presented again ends the family and the grant', async () => {
    const g = await granted(p);
    await w.expect({ kind: 'consent_requested' }, { kind: 'grant_created' }, { kind: 'consent_decided' });
    const rotated = await refresh(p, g.refresh!);
    assert.equal(rotated.status, 200, rotated.text);
    await w.quiet();
    const replay = await refresh(p, g.refresh!);
    assert.equal(replay.status, 400, replay.text);
    await w.expect(
      { kind: 'refresh_family_ended', ids: { grant_ids: [g.grantId] }, grants: [g.grantId] },
      { kind: 'grant_revoked', ids: { grant_ids: [g.grantId] }, grants: [g.grantId] },
    );
  });

  it('a cross-domain read asks for a review once; deciding it announces it; deciding again nothing', async () => {
    const g = await travelGrant(p, 'allow_with_review');
    const id = g.grant.grant_id;
    await w.expect({ kind: 'grant_created', grants: [id] });
    const read = await effective(p, g.token);
    const reviewId = read.json.cross_domain_review.review_id as string;
    await w.expect({
      kind: 'cross_domain_review_requested',
      ids: { review_ids: [reviewId], grant_ids: [id] },
      grants: [id],
    });
    await effective(p, g.token);
    await w.quiet();
    assert.equal((await decide(p, 'approve', { review_id: reviewId })).status, 200);
    await w.expect({
      kind: 'cross_domain_review_decided',
      ids: { review_ids: [reviewId], grant_ids: [id] },
      grants: [id],
    });
    assertError(await decide(p, 'reject', { review_id: reviewId }), 409, 'conflict');
    await w.quiet();
  });

  it('reads announce nothing', async () => {
    const g = await p.grant();
    await w.expect({ kind: 'grant_created' });
    for (const [path, body] of [
      ['/v1/profile/effective', {}],
      ['/v1/profile/query', { requested_keys: ['novelty_tolerance'] }],
      ['/v1/export', {}],
    ] as const) {
      assert.equal((await api(p.url, path, { token: p.subjectToken, body })).status, 200, path);
    }
    assert.equal((await api(p.url, '/v1/profile/summary', { token: g.token })).status, 200);
    assert.equal((await api(p.url, '/v1/consent/grants', { token: p.subjectToken })).status, 200);
    assert.equal((await api(p.url, '/v1/audit/events', { token: p.subjectToken })).status, 200);
    await w.quiet();
  });

  it('deleting the whole profile: profile_deleted, naming every active grant', async () => {
    const grants = await api(p.url, '/v1/consent/grants', { token: p.subjectToken });
    const active = (grants.json.grants as { grant_id: string; status: string }[])
      .filter((g) => g.status === 'active')
      .map((g) => g.grant_id);
    assert.ok(active.length > 3);
    const r = await del('/v1/profile');
    assert.equal(r.status, 200, r.text);
    await w.expect({
      kind: 'profile_deleted',
      ids: { claim_ids: r.json.deleted_claim_ids },
      grants: active,
    });
  });
});
