import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approve, reject } from '../../../test/support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../test/support/provider.ts';
import { decisionFromRedirect, discover, Grant, lookup, PpxClient, waitForDecision } from '../src/index.ts';

// The client library against a started provider (issue 28 item 2): discovery, consent-v2 request →
// the person approves (over the subject's HTTP API, as the consent page would) → exchange → reads,
// write-back, refresh rotation, and the end of an access as an error value.

const REDIRECT = 'http://localhost:5173/callback';

describe('@ppx-provider/client over consent-v2', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  async function client() {
    const provider = await discover(p.url);
    assert.ok(provider.ok, JSON.stringify(provider));
    return new PpxClient(provider.value, { clientId: 'fragrance-demo' });
  }

  /** Asks, has the demo person approve, exchanges: a Grant ready to read. */
  async function granted(c: PpxClient, over: Record<string, unknown> = {}) {
    const pending = await c.requestGrant({
      subject_id: p.subjectId,
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: ['read', 'query'],
      redirect_uri: REDIRECT,
      ...over,
    });
    assert.ok(pending.ok, JSON.stringify(pending));
    const a = await approve(p, pending.value.grantRequestId);
    assert.equal(a.status, 200, a.text);
    const back = new URL(a.json.redirect_to);
    assert.deepEqual(decisionFromRedirect(back, pending.value), { ok: true, value: 'approve' });
    const tokens = await c.exchange(pending.value);
    assert.ok(tokens.ok, JSON.stringify(tokens));
    return { pending: pending.value, grant: new Grant(c, tokens.value.grantId), tokens: tokens.value };
  }

  it('discovers the card and the OAuth metadata', async () => {
    const provider = await discover(`${p.url}/`);
    assert.ok(provider.ok);
    assert.equal(provider.value.baseUrl, p.url);
    assert.equal(provider.value.card.ppx_version, '0.1');
    assert.equal(provider.value.oauth?.token_endpoint, `${p.url}/oauth/token`);
    assert.equal(provider.value.dpop, true);
  });

  it('discovery of something that is not a provider is an error value', async () => {
    const r = await discover('http://127.0.0.1:9');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error.code, 'network_error');
  });

  it('requests, is approved, exchanges, and reads summary, effective and query', async () => {
    const c = await client();
    const { pending, grant, tokens } = await granted(c);
    assert.match(pending.consentUrl, new RegExp(`/consent/${pending.grantRequestId}$`));
    assert.equal(tokens.tokenType, 'Bearer');
    assert.equal((await c.store.get(grant.grantId))?.refreshToken, tokens.refreshToken);

    const summary = await grant.summary();
    assert.ok(summary.ok, JSON.stringify(summary));
    assert.ok(summary.value.claims.length > 0);
    const effective = await grant.effective({ occasion: 'office' });
    assert.ok(effective.ok, JSON.stringify(effective));
    assert.ok(effective.value.claims.every((cl) => cl.namespace === 'core' || cl.namespace === 'fragrance'));
    const query = await grant.query({ requested_namespaces: ['fragrance'] });
    assert.ok(query.ok, JSON.stringify(query));
    assert.ok(query.value.claims.length > 0);
    assert.ok(query.value.claims.every((cl) => cl.namespace === 'fragrance'));
    // Telling "not granted" from "not there".
    assert.equal(lookup(effective.value, 'fragrance.projection_tolerance').state, 'present');
    assert.equal(lookup(effective.value, 'travel.seat_preference').state, 'not_granted');
    assert.equal(lookup(effective.value, 'fragrance.no_such_key').state, 'not_there');
    const basis = await grant.recommendationBasis();
    assert.ok(basis.ok, JSON.stringify(basis));
  });

  it('an operation outside the grant is an error value with its PPX code, not a bare status', async () => {
    const c = await client();
    const { grant } = await granted(c);
    const r = await grant.propose([]);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error.code, 'insufficient_scope');
    assert.equal(!r.ok && r.error.status, 403);
  });

  it('waits for the decision over the back channel', async () => {
    const c = await client();
    const pending = await c.requestGrant({
      subject_id: p.subjectId,
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core'],
      allowed_operations: ['read'],
      redirect_uri: REDIRECT,
    });
    assert.ok(pending.ok);
    const waiting = waitForDecision(c, pending.value, { intervalMs: 20 });
    const a = await approve(p, pending.value.grantRequestId);
    assert.equal(a.status, 200);
    const tokens = await waiting;
    assert.ok(tokens.ok, JSON.stringify(tokens));
    assert.equal(tokens.value.grantId, a.json.grant_id);
  });

  it('a refusal comes back in the redirect; the exchange is then invalid_grant', async () => {
    const c = await client();
    const pending = await c.requestGrant({
      subject_id: p.subjectId,
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core'],
      allowed_operations: ['read'],
      redirect_uri: REDIRECT,
    });
    assert.ok(pending.ok);
    const r = await reject(p, pending.value.grantRequestId);
    assert.deepEqual(decisionFromRedirect(r.json.redirect_to, pending.value), { ok: true, value: 'reject' });
    const t = await c.exchange(pending.value);
    assert.equal(!t.ok && t.error.code, 'invalid_grant');
  });

  it('propose: applied under allow, queued for review under review_required, refused under forbidden', async () => {
    const c = await client();
    const claim = {
      type: 'preference' as const,
      namespace: 'fragrance',
      key: 'projection_tolerance',
      value: 0.4,
      confidence: 0.6,
      source: { kind: 'observed' as const, origin: 'in_app_session' },
    };
    const ops = {
      allowed_operations: ['read', 'query', 'propose_update'] as ('read' | 'query' | 'propose_update')[],
    };
    const allow = await granted(c, { ...ops, writeback_policy: 'allow' });
    const applied = await allow.grant.propose([claim]);
    assert.ok(applied.ok, JSON.stringify(applied));
    assert.equal(applied.value.outcome, 'applied');

    const review = await granted(c, { ...ops, writeback_policy: 'review_required' });
    const queued = await review.grant.propose([{ ...claim, value: 0.5 }]);
    assert.ok(queued.ok, JSON.stringify(queued));
    assert.equal(queued.value.outcome, 'queued_for_review');
    assert.ok(
      queued.value.outcome === 'queued_for_review' && queued.value.proposals[0]?.status === 'pending',
    );

    const forbidden = await granted(c, { ...ops, writeback_policy: 'forbidden' });
    const refused = await forbidden.grant.propose([claim]);
    assert.ok(refused.ok, JSON.stringify(refused));
    assert.equal(refused.value.outcome, 'refused');
  });

  it('refresh rotates the refresh token in the store; concurrent refreshes share one request', async () => {
    const c = await client();
    const { grant, tokens } = await granted(c);
    const [a, b] = await Promise.all([c.refresh(grant.grantId), c.refresh(grant.grantId)]);
    assert.ok(a.ok && b.ok, JSON.stringify([a, b]));
    assert.equal(
      a.value.refreshToken,
      b.value.refreshToken,
      'one refresh, not two (two would end the family)',
    );
    assert.notEqual(a.value.refreshToken, tokens.refreshToken);
    assert.equal((await c.store.get(grant.grantId))?.refreshToken, a.value.refreshToken);
    assert.ok((await grant.summary()).ok, 'the family is still alive');

    // The old refresh token presented again (a copy leaked): the family ends, the grant is revoked.
    const reuse = await api(p.url, '/v1/consent/refresh', {
      body: { client_id: 'fragrance-demo', refresh_token: tokens.refreshToken },
    });
    assert.equal(reuse.status, 400);
    const after = await c.refresh(grant.grantId);
    assert.equal(after.ok, false);
    assert.equal(!after.ok && after.error.code, 'grant_revoked');
    assert.equal(await c.store.get(grant.grantId), undefined, 'the ended tokens are gone from the store');
  });

  it('a grant the person revoked reads as grant_revoked, and its refresh too', async () => {
    const c = await client();
    const { grant } = await granted(c);
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grantId },
    });
    assert.equal(revoked.status, 200, revoked.text);
    const stored = await c.store.get(grant.grantId);
    const read = await grant.effective();
    assert.equal(read.ok, false);
    assert.equal(!read.ok && read.error.code, 'grant_revoked');
    assert.ok(stored);
    await c.store.set(stored);
    const r = await c.refresh(grant.grantId);
    assert.equal(!r.ok && r.error.code, 'grant_revoked');
    assert.equal(!r.ok && r.error.status, 410);
  });
});
