import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nextMillisecond } from '../../support/clock.ts';
import {
  assertError,
  assertNoInternalId,
  CORE_KEYS,
  FRAGRANCE_KEYS,
  keysOf,
  sorted,
  TRAVEL_KEYS,
} from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Audit (SPEC §10 MUST 3) and export (SPEC §9) over HTTP.

interface Event {
  event_id: string;
  at: string;
  subject_id: string;
  actor: { kind: string; id: string };
  grant_id?: string;
  action: string;
  claim_keys: string[];
  outcome: string;
  detail?: string;
}

describe('HTTP audit log', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const audit = async (token: string, qs = ''): Promise<{ events: Event[]; next_cursor?: string }> => {
    const r = await api(p.url, `/v1/audit/events${qs}`, { token });
    assert.equal(r.status, 200, r.text);
    return r.json;
  };
  /** Every event visible to `token` under the query `qs`, following cursors. */
  const auditAll = async (token: string, qs = ''): Promise<Event[]> => {
    const out: Event[] = [];
    let cursor: string | undefined;
    do {
      const sep = qs ? '&' : '?';
      const page = await audit(token, `${qs}${cursor ? `${sep}cursor=${cursor}` : ''}`);
      out.push(...page.events);
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  };

  it('records a grantee read with actor, grant, action and the keys read; the subject sees it', async () => {
    const { grant, token } = await p.grant({
      allowed_claim_keys: ['novelty_tolerance', 'fragrance.note_aversions'],
    });
    const read = await api(p.url, '/v1/profile/query', { token, body: {} });
    assert.equal(read.status, 200);
    const events = await auditAll(p.subjectToken, `?grant_id=${encodeURIComponent(grant.grant_id)}`);
    const q = events.filter((e) => e.action === 'query');
    assert.equal(q.length, 1, JSON.stringify(events));
    const ev = q[0]!;
    assert.deepEqual(ev.actor, { kind: 'grantee', id: 'fragrance-demo' });
    assert.equal(ev.grant_id, grant.grant_id);
    assert.equal(ev.outcome, 'ok');
    assert.equal(ev.subject_id, p.subjectId);
    assert.deepEqual(sorted(ev.claim_keys), ['fragrance.note_aversions', 'novelty_tolerance']);
    assert.match(ev.event_id, /^ppx:event:/);
    assert.ok(Math.abs(Date.parse(ev.at) - Date.now()) < 60_000);
    // the grant's creation is there too, for the owner
    assert.equal(events.filter((e) => e.action === 'grant_created').length, 1);
  });

  it('each read kind is audited under its own action', async () => {
    const { grant, token } = await p.grant({ allowed_operations: ['read', 'query', 'export'] });
    await api(p.url, '/v1/profile/summary', { token });
    await api(p.url, '/v1/profile/effective', { token, body: {} });
    await api(p.url, '/v1/export', { token, body: {} });
    await api(p.url, '/v1/consent/grants', { token });
    const actions = (await auditAll(p.subjectToken, `?grant_id=${encodeURIComponent(grant.grant_id)}`))
      .filter((e) => e.actor.kind === 'grantee')
      .map((e) => e.action);
    assert.deepEqual(actions, ['summary', 'effective', 'export', 'list_grants']);
  });

  it("a grantee sees only its own grant's events, under its pairwise id", async () => {
    const a = await p.grant();
    const b = await p.grant(); // same client, other grant
    const c = await p.grant({
      client_id: 'travel-demo',
      allowed_namespaces: ['travel'],
      allowed_domains: ['travel'],
    });
    for (const g of [a, b, c]) await api(p.url, '/v1/profile/summary', { token: g.token });
    const r = await api(p.url, '/v1/audit/events?limit=500', { token: a.token });
    assert.equal(r.status, 200);
    assertNoInternalId(r);
    assert.ok(r.json.events.length >= 1);
    for (const ev of r.json.events as Event[]) {
      assert.equal(ev.grant_id, a.grant.grant_id);
      assert.deepEqual(ev.actor, { kind: 'grantee', id: 'fragrance-demo' });
      assert.match(ev.subject_id, /^ppx:subject:/);
    }
    assert.ok(!r.text.includes(b.grant.grant_id));
    assert.ok(!r.text.includes(c.grant.grant_id));
    // asking for another grant's events yields nothing
    for (const other of [b, c]) {
      const x = await api(p.url, `/v1/audit/events?grant_id=${encodeURIComponent(other.grant.grant_id)}`, {
        token: a.token,
      });
      assert.equal(x.status, 200);
      assert.deepEqual(x.json.events, []);
    }
  });

  it('filters by grant_id and action', async () => {
    const { grant, token } = await p.grant();
    await api(p.url, '/v1/profile/summary', { token });
    await api(p.url, '/v1/profile/summary', { token });
    await api(p.url, '/v1/profile/query', { token, body: {} });
    const gid = encodeURIComponent(grant.grant_id);
    const summaries = await auditAll(p.subjectToken, `?grant_id=${gid}&action=summary`);
    assert.equal(summaries.length, 2);
    for (const e of summaries) {
      assert.equal(e.action, 'summary');
      assert.equal(e.grant_id, grant.grant_id);
    }
    const all = await auditAll(p.subjectToken, '?action=query');
    assert.ok(all.length >= 1);
    for (const e of all) assert.equal(e.action, 'query');
    const mine = await auditAll(token, '?action=query');
    assert.equal(mine.length, 1);
  });

  it('filters by since and until', async () => {
    const { grant, token } = await p.grant();
    await api(p.url, '/v1/profile/summary', { token });
    await nextMillisecond();
    const mid = new Date().toISOString();
    await nextMillisecond();
    await api(p.url, '/v1/profile/query', { token, body: {} });
    const gid = encodeURIComponent(grant.grant_id);
    const after = (await auditAll(token, `?grant_id=${gid}&since=${encodeURIComponent(mid)}`)).map(
      (e) => e.action,
    );
    const before = (await auditAll(token, `?grant_id=${gid}&until=${encodeURIComponent(mid)}`)).map(
      (e) => e.action,
    );
    assert.deepEqual(after, ['query']);
    assert.deepEqual(before, ['summary']);
    const none = await auditAll(token, `?since=${encodeURIComponent(mid)}&until=${encodeURIComponent(mid)}`);
    assert.deepEqual(none, []);
  });

  it('paginates with limit and cursor: no duplicates, no gaps, oldest first', async () => {
    const { grant, token } = await p.grant();
    for (let i = 0; i < 7; i++) await api(p.url, '/v1/profile/summary', { token });
    const gid = encodeURIComponent(grant.grant_id);
    const full = await audit(token, `?grant_id=${gid}&limit=500`);
    assert.equal(full.events.length, 7);
    assert.equal(full.next_cursor, undefined);
    const first = await audit(token, `?grant_id=${gid}&limit=3`);
    assert.equal(first.events.length, 3);
    assert.equal(typeof first.next_cursor, 'string');
    const paged = await auditAll(token, `?grant_id=${gid}&limit=3`);
    assert.deepEqual(
      paged.map((e) => e.event_id),
      full.events.map((e) => e.event_id),
    );
    assert.equal(new Set(paged.map((e) => e.event_id)).size, 7);
    const times = paged.map((e) => Date.parse(e.at));
    assert.deepEqual(
      times,
      [...times].sort((x, y) => x - y),
    );
  });

  it('lists newest first with order=newest, and refuses a cursor of the other order', async () => {
    const { grant, token } = await p.grant();
    for (let i = 0; i < 5; i++) await api(p.url, '/v1/profile/summary', { token });
    const gid = encodeURIComponent(grant.grant_id);
    const oldest = await auditAll(token, `?grant_id=${gid}&limit=2`);
    const newest = await auditAll(token, `?grant_id=${gid}&limit=2&order=newest`);
    assert.equal(newest.length, 5);
    assert.deepEqual(
      newest.map((e) => e.event_id),
      oldest.map((e) => e.event_id).reverse(),
    );
    const latest = await audit(token, `?grant_id=${gid}&limit=1&order=newest`);
    assert.equal(latest.events[0]?.event_id, oldest.at(-1)?.event_id);
    const page = await audit(token, `?grant_id=${gid}&limit=2`);
    const mixed = await api(
      p.url,
      `/v1/audit/events?grant_id=${gid}&order=newest&cursor=${page.next_cursor}`,
      {
        token,
      },
    );
    assertError(mixed, 400, 'invalid_request');
    assertError(await api(p.url, '/v1/audit/events?order=sideways', { token }), 400, 'invalid_request');
  });

  it('audits a denied request with outcome "denied"', async () => {
    const { grant, token } = await p.grant();
    const r = await api(p.url, '/v1/profile/query', { token, body: { requested_namespaces: ['travel'] } });
    assertError(r, 403, 'insufficient_scope');
    const events = await auditAll(
      p.subjectToken,
      `?grant_id=${encodeURIComponent(grant.grant_id)}&action=denied`,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0]!.outcome, 'denied');
    assert.deepEqual(events[0]!.actor, { kind: 'grantee', id: 'fragrance-demo' });
    assert.deepEqual(events[0]!.claim_keys, []);
    assert.match(events[0]!.detail ?? '', /insufficient_scope/);
    // the grantee sees its own denial too
    const own = await auditAll(token, '?action=denied');
    assert.equal(own.length, 1);
    const cross = await api(p.url, '/v1/profile/effective', { token, body: { requested_domain: 'travel' } });
    assertError(cross, 403, 'cross_domain_denied');
    const denied = await auditAll(token, '?action=denied');
    assert.equal(denied.length, 2);
    assert.match(denied[1]!.detail ?? '', /cross_domain_denied/);
  });

  it('audits revocation by the subject', async () => {
    const { grant } = await p.grant();
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: grant.grant_id } });
    const events = await auditAll(
      p.subjectToken,
      `?grant_id=${encodeURIComponent(grant.grant_id)}&action=revoke`,
    );
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.actor, { kind: 'subject', id: p.subjectId });
  });
});

describe('HTTP export', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('gives the subject everything: all namespaces, modifiers, grants', async () => {
    const g1 = await p.grant();
    const g2 = await p.grant({
      client_id: 'travel-demo',
      allowed_namespaces: ['travel'],
      allowed_domains: ['travel'],
    });
    const r = await api(p.url, '/v1/export', { token: p.subjectToken, body: {} });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(keysOf(r.json), sorted([...CORE_KEYS, ...FRAGRANCE_KEYS, ...TRAVEL_KEYS]));
    assert.equal(r.json.profile_id, 'ppx:profile:demo-0001');
    assert.equal(r.json.subject_id, p.subjectId);
    assert.deepEqual(r.json.context_modifiers.map((m: { modifier_id: string }) => m.modifier_id).sort(), [
      'ppx:modifier:demo-climate-hot-humid',
      'ppx:modifier:demo-occasion-date-night',
      'ppx:modifier:demo-occasion-office',
    ]);
    const ids = r.json.consent_grants.map((g: { grant_id: string }) => g.grant_id);
    assert.ok(ids.includes(g1.grant.grant_id));
    assert.ok(ids.includes(g2.grant.grant_id));
    assert.deepEqual(
      r.json.extensions.map((e: { namespace: string }) => e.namespace),
      ['core', 'fragrance', 'travel'],
    );
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  it('refuses a grant without export with 403 insufficient_scope', async () => {
    const { token } = await p.grant({ allowed_operations: ['read', 'query'] });
    const r = await api(p.url, '/v1/export', { token, body: {} });
    assertError(r, 403, 'insufficient_scope');
    assert.match(r.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    assert.equal(r.json.claims, undefined);
  });

  it('gives an export grant only its scope, pairwise ids and only its own grant', async () => {
    const other = await p.grant();
    const { grant, token } = await p.grant({
      allowed_operations: ['export'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_claim_keys: ['risk_tolerance', 'fragrance.occasion_bias'],
    });
    const r = await api(p.url, '/v1/export', { token, body: {} });
    assert.equal(r.status, 200, r.text);
    assertNoInternalId(r);
    assert.deepEqual(keysOf(r.json), ['fragrance.occasion_bias', 'risk_tolerance']);
    assert.match(r.json.subject_id, /^ppx:subject:/);
    assert.match(r.json.profile_id, /^ppx:profile:/);
    assert.notEqual(r.json.profile_id, 'ppx:profile:demo-0001');
    assert.deepEqual(r.json.context_modifiers, []);
    assert.deepEqual(
      r.json.consent_grants.map((g: { grant_id: string }) => g.grant_id),
      [grant.grant_id],
    );
    assert.equal(r.json.consent_grants[0].subject_id, r.json.subject_id);
    assert.ok(!r.text.includes(other.grant.grant_id));
    assert.deepEqual(
      r.json.extensions.map((e: { namespace: string }) => e.namespace),
      ['core', 'fragrance'],
    );
    // the pairwise profile id is stable for the client and differs between clients
    const again = await api(p.url, '/v1/export', { token, body: {} });
    assert.equal(again.json.profile_id, r.json.profile_id);
    const travel = await p.grant({
      client_id: 'travel-demo',
      allowed_operations: ['export'],
      allowed_namespaces: ['travel'],
      allowed_domains: ['travel'],
    });
    const t = await api(p.url, '/v1/export', { token: travel.token, body: {} });
    assert.equal(t.status, 200);
    assert.notEqual(t.json.profile_id, r.json.profile_id);
    assert.notEqual(t.json.subject_id, r.json.subject_id);
    assert.deepEqual(keysOf(t.json), sorted(TRAVEL_KEYS));
  });

  it('never shows a grantee that the profile changed outside its grant: the export is the same, updated_at included', async () => {
    const { token } = await p.grant({ allowed_operations: ['export'], allowed_namespaces: ['core'] });
    const first = await api(p.url, '/v1/export', { token, body: {} });
    assert.equal(first.status, 200, first.text);
    const profile = await p.deps.store.getProfileBySubject(p.subjectId);
    assert.ok(profile);
    const outside = (await p.deps.store.listClaims(profile.profile_id)).find((c) => c.namespace === 'travel');
    assert.ok(outside);
    const deleted = await api(p.url, `/v1/profile/claims/${encodeURIComponent(outside.claim_id)}`, {
      method: 'DELETE',
      token: p.subjectToken,
    });
    assert.equal(deleted.status, 200, deleted.text);
    const second = await api(p.url, '/v1/export', { token, body: {} });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json, first.json);
    // updated_at: when the grant's namespaces last changed, to the hour, never before created_at.
    const { created_at, updated_at } = second.json;
    assert.ok(updated_at === created_at || /T\d\d:00:00\.000Z$/.test(updated_at), updated_at);
    assert.ok(Date.parse(updated_at) >= Date.parse(created_at));
  });
});
