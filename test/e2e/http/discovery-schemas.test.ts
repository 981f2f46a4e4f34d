import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { CATALOG, operationIdOf } from '../../../src/operations/catalog/index.ts';
import { assertNoInternalId } from '../../support/http-api.ts';
import { officialErrors, SKIP_NO_SHARED } from '../../support/official-schemas.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Every PPX object the HTTP surface emits validates against the official schemas; the discovery
// card and the OpenAPI document describe what is actually served.

describe('HTTP discovery, OpenAPI and official schemas', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  describe('discovery card', () => {
    it('validates and advertises core and the HTTP binding', { skip: SKIP_NO_SHARED }, async () => {
      const r = await api(p.url, '/.well-known/ppx-card.json');
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(officialErrors('discovery-card', r.json), []);
      assert.equal(r.json.ppx_version, '0.1');
      assert.equal(r.json.provider_id, 'ppx:provider:local');
      assert.ok(r.json.supported_namespaces.includes('core'));
      assert.deepEqual(r.json.supported_namespaces, ['core', 'fragrance', 'travel']);
      assert.equal(r.json.transport_bindings.http_api.supported, true);
      assert.equal(r.json.capabilities.export, true);
      assert.equal(r.json.capabilities.audit_log, true);
      assert.equal(r.json.default_policies.cross_domain_transfer, 'deny');
    });

    it('openapi_uri and grant_jwks_uri resolve', async () => {
      const card = (await api(p.url, '/.well-known/ppx-card.json')).json;
      const openapi = await fetch(card.transport_bindings.http_api.openapi_uri);
      assert.equal(openapi.status, 200);
      const doc = (await openapi.json()) as { openapi: string };
      assert.equal(doc.openapi, '3.1.0');
      const jwks = await fetch(card.signing.grant_jwks_uri);
      assert.equal(jwks.status, 200);
      const keys = ((await jwks.json()) as { keys: { kty: string; d?: string }[] }).keys;
      assert.equal(keys.length, 1);
      assert.equal(keys[0]!.kty, 'OKP');
      assert.equal(keys[0]!.d, undefined, 'the JWKS must not publish the private key');
    });
  });

  describe('OpenAPI', () => {
    it('is a valid OpenAPI 3.1 document listing every route', async () => {
      const r = await api(p.url, '/openapi.json');
      assert.equal(r.status, 200);
      const v = new Validator();
      const res = await v.validate(r.json);
      assert.equal(res.valid, true, JSON.stringify(res.errors));
      assert.equal(v.version, '3.1');
      // Path parameters: Hono's `:name` is OpenAPI's `{name}`.
      const oaPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');
      // Exactly the catalog's operations with an HTTP binding, each where it binds it.
      const bound = CATALOG.flatMap((o) =>
        o.http ? [{ ...o.http, operationId: operationIdOf(o.name) }] : [],
      );
      assert.ok(bound.length >= 27, `only ${bound.length} HTTP operations in the catalog`);
      for (const route of bound) {
        const op = r.json.paths[oaPath(route.path)]?.[route.method.toLowerCase()];
        assert.ok(op, `${route.method} ${route.path} missing from openapi.json`);
        assert.equal(op.operationId, route.operationId);
      }
      const documented = Object.entries(
        r.json.paths as Record<string, Record<string, { operationId: string }>>,
      ).flatMap(([path, ops]) =>
        Object.entries(ops).map(([m, op]) => `${m.toUpperCase()} ${path} ${op.operationId}`),
      );
      assert.deepEqual(
        documented.sort(),
        bound.map((x) => `${x.method} ${oaPath(x.path)} ${x.operationId}`).sort(),
      );
    });
  });

  describe('extensions', () => {
    it('each extension descriptor validates', { skip: SKIP_NO_SHARED }, async () => {
      const r = await api(p.url, '/v1/extensions');
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.json.extensions.map((e: { namespace: string }) => e.namespace),
        ['core', 'fragrance', 'travel'],
      );
      for (const e of r.json.extensions)
        assert.deepEqual(officialErrors('extension-descriptor', e), [], e.namespace);
    });
  });

  describe('effective-profile documents', () => {
    for (const path of ['/v1/profile/query', '/v1/profile/effective']) {
      it(`${path} validates for a grant token, with the grant echo`, { skip: SKIP_NO_SHARED }, async () => {
        const { grant, token } = await p.grant({ allowed_claim_keys: ['novelty_tolerance'] });
        const r = await api(p.url, path, { token, body: { context: { weather: 'nothing-matches' } } });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(officialErrors('effective-profile', r.json), []);
        assert.deepEqual(r.json.applied_modifiers, []);
        assert.equal(r.json.profile_id, undefined, 'a grantee must not get the stable profile id');
        assert.deepEqual(r.json.grant, {
          grant_id: grant.grant_id,
          allowed_namespaces: ['core', 'fragrance'],
          allowed_claim_keys: ['novelty_tolerance'],
          allowed_domains: ['fragrance'],
          purposes: ['recommendation'],
          cross_domain_transfer: 'deny',
          writeback_policy: 'review_required',
          expires_at: grant.expires_at,
        });
        assert.equal(typeof r.json.generated_at, 'string');
        assertNoInternalId(r);
        for (const c of r.json.claims) assert.deepEqual(officialErrors('claim', c), [], c.claim_id);
      });

      it(`${path} validates for the subject token`, { skip: SKIP_NO_SHARED }, async () => {
        const r = await api(p.url, path, { token: p.subjectToken, body: {} });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(officialErrors('effective-profile', r.json), []);
        assert.deepEqual(r.json.applied_modifiers, []);
        assert.equal(r.json.profile_id, 'ppx:profile:demo-0001');
      });
    }
  });

  describe('consent grants and export', () => {
    it('every grant of /v1/consent/grants validates (active, expired, revoked)', {
      skip: SKIP_NO_SHARED,
    }, async () => {
      const active = await p.grant({ allowed_claim_keys: ['novelty_tolerance'] });
      const expired = await p.grant({ expires_at: new Date(Date.now() - 1000).toISOString() });
      const revoked = await p.grant({ client_id: 'travel-demo', allowed_namespaces: ['travel'] });
      await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: revoked.grant.grant_id },
      });
      const r = await api(p.url, '/v1/consent/grants', { token: p.subjectToken });
      assert.equal(r.status, 200);
      const status = new Map<string, string>();
      for (const g of r.json.grants) {
        assert.deepEqual(officialErrors('consent-grant', g), [], g.grant_id);
        status.set(g.grant_id, g.status);
        assert.equal(g.profile_id, undefined);
        assert.equal(g.access_mode, undefined);
      }
      assert.equal(status.get(active.grant.grant_id), 'active');
      assert.equal(status.get(expired.grant.grant_id), 'expired');
      assert.equal(status.get(revoked.grant.grant_id), 'revoked');
      const own = await api(p.url, '/v1/consent/grants', { token: active.token });
      assert.equal(own.json.grants.length, 1);
      assert.deepEqual(officialErrors('consent-grant', own.json.grants[0]), []);
      assertNoInternalId(own);
    });

    it('the export validates, for the subject and for an export grant', {
      skip: SKIP_NO_SHARED,
    }, async () => {
      const sub = await api(p.url, '/v1/export', { token: p.subjectToken, body: {} });
      assert.equal(sub.status, 200, sub.text);
      assert.deepEqual(officialErrors('profile', sub.json), []);
      const { token } = await p.grant({ allowed_operations: ['export'] });
      const g = await api(p.url, '/v1/export', { token, body: {} });
      assert.equal(g.status, 200, g.text);
      assert.deepEqual(officialErrors('profile', g.json), []);
      assertNoInternalId(g);
    });
  });

  describe('routing', () => {
    it('an unknown path is a JSON 404 not_found', async () => {
      // (`/v1/profile` itself exists now, for DELETE: a GET there is 405, tested below.)
      for (const path of ['/nope', '/v1/profiles', '/v1/profile/summary/', '/v2/profile/summary']) {
        const r = await api(p.url, path, { token: p.subjectToken });
        assert.equal(r.status, 404, path);
        assert.equal(r.json.error, 'not_found', path);
        assert.ok(r.json.error_description.length > 0);
      }
    });

    it('a GET on /v1/profile (DELETE only) is 405 with Allow', async () => {
      const r = await api(p.url, '/v1/profile', { token: p.subjectToken });
      assert.equal(r.status, 405);
      assert.equal(r.headers.get('allow'), 'DELETE');
    });

    it('/healthz answers', async () => {
      const r = await api(p.url, '/healthz');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { status: 'ok' });
    });
  });
});
