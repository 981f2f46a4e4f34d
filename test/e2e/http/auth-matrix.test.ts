import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  assertBareChallenge,
  assertError,
  assertInvalidTokenChallenge,
  assertNoInternalId,
  CORE_KEYS,
  FRAGRANCE_KEYS,
  keysOf,
  pastIso,
  sorted,
  TRAVEL_KEYS,
} from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Every bearer endpoint of the route table, each under: a valid grant token, an expired grant, a
// revoked grant, a narrowed grant, no token, and the subject token.

interface Endpoint {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** The body to send; `grantId` is the caller's own grant (used by revoke). */
  body?(grantId: string): unknown;
}

const ENDPOINTS: readonly Endpoint[] = [
  { name: 'summary', method: 'GET', path: '/v1/profile/summary' },
  { name: 'query', method: 'POST', path: '/v1/profile/query', body: () => ({}) },
  { name: 'effective', method: 'POST', path: '/v1/profile/effective', body: () => ({ context: {} }) },
  { name: 'grants', method: 'GET', path: '/v1/consent/grants' },
  { name: 'revoke', method: 'POST', path: '/v1/consent/revoke', body: (grant_id) => ({ grant_id }) },
  { name: 'audit', method: 'GET', path: '/v1/audit/events' },
  { name: 'export', method: 'POST', path: '/v1/export', body: () => ({}) },
];

const NARROW_KEYS = ['fragrance.family_preference', 'fragrance.intensity_preference', 'novelty_tolerance'];
const FULL_GRANT_KEYS = sorted([...CORE_KEYS, ...FRAGRANCE_KEYS]);
const ALL_KEYS = sorted([...CORE_KEYS, ...FRAGRANCE_KEYS, ...TRAVEL_KEYS]);
const OPS = ['read', 'query', 'export'] as const;

describe('HTTP auth matrix: every bearer endpoint', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const call = (e: Endpoint, token: string | undefined, grantId = 'ppx:grant:none') =>
    api(p.url, e.path, {
      method: e.method,
      ...(token !== undefined ? { token } : {}),
      ...(e.body ? { body: e.body(grantId) } : {}),
    });

  const revokeAsSubject = async (grantId: string) => {
    const r = await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: grantId } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.grant.status, 'revoked');
  };

  for (const e of ENDPOINTS) {
    describe(`${e.method} ${e.path}`, () => {
      it('answers a valid grant token with 200 and no internal subject id', async () => {
        const { grant, token } = await p.grant({ allowed_operations: [...OPS] });
        if (e.name === 'audit') {
          // Something to list: a fresh grant's own audit is empty.
          assert.equal((await api(p.url, '/v1/profile/summary', { token })).status, 200);
        }
        const r = await call(e, token, grant.grant_id);
        assert.equal(r.status, 200, r.text);
        assert.equal(r.headers.get('cache-control'), 'no-store');
        assertNoInternalId(r);
        if (['summary', 'query', 'effective', 'export'].includes(e.name)) {
          assert.deepEqual(keysOf(r.json), FULL_GRANT_KEYS);
          assert.match(r.json.subject_id, /^ppx:subject:/);
        }
        if (e.name === 'grants') {
          assert.deepEqual(
            r.json.grants.map((g: { grant_id: string }) => g.grant_id),
            [grant.grant_id],
          );
        }
        if (e.name === 'revoke') {
          assert.equal(r.json.grant.grant_id, grant.grant_id);
          assert.equal(r.json.grant.status, 'revoked');
        }
        if (e.name === 'audit') {
          assert.ok(r.json.events.length >= 1, 'the summary read is listed');
          for (const ev of r.json.events) assert.equal(ev.grant_id, grant.grant_id);
        }
      });

      it('refuses an expired grant with 401 grant_expired', async () => {
        const { grant, token } = await p.grant({ allowed_operations: [...OPS], expires_at: pastIso() });
        const r = await call(e, token, grant.grant_id);
        assertInvalidTokenChallenge(r, 'grant_expired');
        assert.equal(r.json.grant_id, grant.grant_id);
        assertNoInternalId(r);
      });

      it('refuses a revoked grant on the very next request with 401 grant_revoked', async () => {
        const { grant, token } = await p.grant({ allowed_operations: [...OPS] });
        if (e.name !== 'revoke') {
          const first = await call(e, token, grant.grant_id);
          assert.equal(first.status, 200, first.text);
        }
        await revokeAsSubject(grant.grant_id);
        const r = await call(e, token, grant.grant_id);
        assertInvalidTokenChallenge(r, 'grant_revoked');
        assert.equal(r.json.grant_id, grant.grant_id);
        // and it stays refused
        assertInvalidTokenChallenge(await call(e, token, grant.grant_id), 'grant_revoked');
      });

      it('honours a narrowed grant: exactly the allowed keys, nothing else', async () => {
        const { grant, token } = await p.grant({
          allowed_operations: [...OPS],
          allowed_claim_keys: NARROW_KEYS,
        });
        if (e.name === 'audit') {
          const read = await api(p.url, '/v1/profile/summary', { token });
          assert.equal(read.status, 200);
        }
        const r = await call(e, token, grant.grant_id);
        assert.equal(r.status, 200, r.text);
        assertNoInternalId(r);
        switch (e.name) {
          case 'summary':
          case 'query':
          case 'effective':
          case 'export':
            assert.deepEqual(keysOf(r.json), NARROW_KEYS);
            break;
          case 'grants':
            assert.equal(r.json.grants.length, 1);
            assert.equal(r.json.grants[0].grant_id, grant.grant_id);
            assert.deepEqual(sorted(r.json.grants[0].allowed_claim_keys), NARROW_KEYS);
            break;
          case 'revoke':
            assert.deepEqual(sorted(r.json.grant.allowed_claim_keys), NARROW_KEYS);
            break;
          case 'audit': {
            const summaries = r.json.events.filter((ev: { action: string }) => ev.action === 'summary');
            assert.equal(summaries.length, 1, r.text);
            assert.deepEqual(sorted(summaries[0].claim_keys), NARROW_KEYS);
            for (const ev of r.json.events) assert.equal(ev.grant_id, grant.grant_id);
            break;
          }
        }
      });

      it('answers no token with a bare 401 challenge', async () => {
        const r = await call(e, undefined);
        assertBareChallenge(r);
      });

      it('serves the subject token', async () => {
        if (e.name === 'revoke') {
          const { grant, token } = await p.grant();
          const r = await call(e, p.subjectToken, grant.grant_id);
          assert.equal(r.status, 200, r.text);
          assert.equal(r.json.grant.status, 'revoked');
          assert.equal(r.json.grant.subject_id, p.subjectId);
          assertInvalidTokenChallenge(await api(p.url, '/v1/profile/summary', { token }), 'grant_revoked');
          return;
        }
        const r = await call(e, p.subjectToken);
        assert.equal(r.status, 200, r.text);
        switch (e.name) {
          case 'summary':
          case 'query':
          case 'effective':
          case 'export':
            assert.deepEqual(keysOf(r.json), ALL_KEYS);
            assert.equal(r.json.subject_id, p.subjectId);
            assert.equal(r.json.grant, undefined);
            break;
          case 'grants':
            assert.ok(r.json.grants.length >= 1);
            for (const g of r.json.grants) assert.equal(g.subject_id, p.subjectId);
            break;
          case 'audit':
            assert.ok(r.json.events.length >= 1);
            for (const ev of r.json.events) assert.equal(ev.subject_id, p.subjectId);
            break;
        }
      });
    });
  }

  it('a query-only grant may not read the summary or the effective profile (403 insufficient_scope)', async () => {
    const { token } = await p.grant({ allowed_operations: ['query'] });
    for (const [path, body] of [
      ['/v1/profile/summary', undefined],
      ['/v1/profile/effective', {}],
    ] as const) {
      const r = await api(p.url, path, body === undefined ? { token } : { token, body });
      assertError(r, 403, 'insufficient_scope');
      assert.match(r.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    }
    const q = await api(p.url, '/v1/profile/query', { token, body: {} });
    assert.equal(q.status, 200, q.text);
  });

  it('serves discovery and extensions without a token', async () => {
    for (const path of ['/.well-known/ppx-card.json', '/v1/extensions']) {
      const r = await api(p.url, path);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get('www-authenticate'), null);
    }
  });
});
