import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertInvalidTokenChallenge, assertNoTrace } from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Bad input on every endpoint that takes input (body size limits: body-limits.test.ts): each answer has the right status and PPX code, a
// description, a JSON body without implementation details, and never a 500. A failed write
// writes nothing.

interface BodyEndpoint {
  readonly path: string;
  /** A body with a field of the wrong type. */
  readonly wrongType: unknown[];
}

const BODY_ENDPOINTS: readonly BodyEndpoint[] = [
  {
    path: '/v1/profile/query',
    wrongType: [
      { requested_namespaces: 'core' },
      { requested_keys: [1, 2] },
      { min_confidence: 'high' },
      { min_confidence: 2 },
      { provenance: ['gossip'] },
      { context: 'hot' },
      { context: { Climate: 'x' } },
      { context: { climate: { nested: true } } },
      { purpose: 'spying' },
      { requested_namespaces: Array.from({ length: 101 }, () => 'core') },
    ],
  },
  {
    path: '/v1/profile/effective',
    wrongType: [
      { requested_namespaces: 'core' },
      { requested_domain: ['fragrance'] },
      { requested_domain: '' },
      { context: [] },
      { context: { climate: null } },
    ],
  },
  { path: '/v1/consent/revoke', wrongType: [{ grant_id: 42 }, { grant_id: '' }, { grant_id: ['x'] }] },
  { path: '/v1/export', wrongType: [{ claims: [] }] },
];

describe('HTTP bad input', () => {
  let p: TestProvider;
  let grantId: string;
  let token: string;

  before(async () => {
    p = await startTestProvider();
    ({
      grant: { grant_id: grantId },
      token,
    } = await p.grant({ allowed_operations: ['read', 'query', 'export'] }));
  });
  after(() => p.close());

  /** The grant must still be active and unrevoked after every failed write. */
  async function assertGrantUntouched() {
    const r = await api(p.url, '/v1/profile/summary', { token });
    assert.equal(r.status, 200, `the grant was changed by a failed request: ${r.text}`);
    const revokes = await api(
      p.url,
      `/v1/audit/events?action=revoke&grant_id=${encodeURIComponent(grantId)}`,
      {
        token: p.subjectToken,
      },
    );
    assert.deepEqual(revokes.json.events, []);
  }

  const raw = (
    path: string,
    body: NonNullable<RequestInit['body']>,
    headers: Record<string, string>,
    t = token,
  ) => fetch(p.url + path, { method: 'POST', body, headers: { authorization: `Bearer ${t}`, ...headers } });

  async function read(res: Response) {
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json } as Awaited<ReturnType<typeof api>>;
  }

  for (const e of BODY_ENDPOINTS) {
    describe(`POST ${e.path}`, () => {
      const bodies = (revokeId = grantId) => (e.path === '/v1/consent/revoke' ? { grant_id: revokeId } : {});

      for (const t of ['grant', 'subject'] as const) {
        const tok = () => (t === 'grant' ? token : p.subjectToken);

        it(`malformed JSON is 400 invalid_request (${t} token)`, async () => {
          for (const body of ['{"grant_id":', '{bad json}', "{'a':1}", '[1,2', 'nul', '{"a":1}}']) {
            const r = await api(p.url, e.path, { token: tok(), body });
            assertError(r, 400, 'invalid_request');
          }
          await assertGrantUntouched();
        });

        it(`wrong types are 400 invalid_request (${t} token)`, async () => {
          for (const body of [...e.wrongType, null, [], 'a string', 7, true]) {
            const r = await api(p.url, e.path, { token: tok(), body: JSON.stringify(body) });
            assertError(r, 400, 'invalid_request');
          }
          await assertGrantUntouched();
        });

        it(`unknown fields are 400 invalid_request (${t} token)`, async () => {
          for (const extra of [
            { bogus: 1 },
            { subject_id: p.subjectId },
            { allowed_namespaces: ['travel'] },
          ]) {
            const r = await api(p.url, e.path, { token: tok(), body: { ...bodies(), ...extra } });
            assertError(r, 400, 'invalid_request');
            assert.match(r.json.error_description, new RegExp(Object.keys(extra)[0]!));
          }
          const proto = await api(p.url, e.path, { token: tok(), body: '{"__proto__": {"admin": true}}' });
          assertError(proto, 400, 'invalid_request');
          await assertGrantUntouched();
        });
      }

      it('a non-JSON content type is 415 unsupported_media_type', async () => {
        for (const type of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
        ]) {
          const r = await api(p.url, e.path, {
            token,
            body: JSON.stringify(bodies()),
            headers: { 'content-type': type },
          });
          assertError(r, 415, 'unsupported_media_type');
        }
        const none = await read(await raw(e.path, new Blob([JSON.stringify(bodies())]), {}));
        assertError(none, 415, 'unsupported_media_type');
        await assertGrantUntouched();
      });

      it('a body that is not UTF-8 is 400 invalid_request', async () => {
        const bytes = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]);
        const r = await read(await raw(e.path, bytes, { 'content-type': 'application/json' }));
        assertError(r, 400, 'invalid_request');
      });

      it('deeply nested JSON is a 400, not a crash', async () => {
        const depth = 50_000;
        const deep = `{"context":${'['.repeat(depth)}${']'.repeat(depth)}}`;
        const r = await api(p.url, e.path, { token, body: deep });
        assertError(r, 400, 'invalid_request');
      });
    });
  }

  for (const path of ['/v1/profile/query', '/v1/profile/effective']) {
    it(`${path}: an unknown namespace is 400 unknown_namespace (grant and subject)`, async () => {
      for (const t of [token, p.subjectToken]) {
        for (const body of [
          { requested_namespaces: ['astrology'] },
          { requested_namespaces: ['core', 'astrology'] },
          { requested_keys: ['astrology.sign'] },
        ]) {
          const r = await api(p.url, path, { token: t, body });
          assertError(r, 400, 'unknown_namespace');
          assert.match(r.json.error_description, /astrology/);
        }
      }
    });
  }

  it('revoke of an unknown or malformed grant id is 404 not_found and changes nothing', async () => {
    for (const id of ['ppx:grant:nope', 'nope', "' OR 1=1 --", 'x'.repeat(300)]) {
      const r = await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: id } });
      assertError(r, 404, 'not_found');
    }
    const long = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: 'x'.repeat(301) },
    });
    assertError(long, 400, 'invalid_request');
    await assertGrantUntouched();
  });

  describe('GET /v1/audit/events query string', () => {
    const bad = [
      'limit=0',
      'limit=501',
      'limit=abc',
      'limit=1.5',
      'limit=-3',
      'action=teleport',
      'since=yesterday',
      'until=2026-13-45T00:00:00Z',
      'since=2026-01-01',
      'foo=1',
      'cursor=!!!',
      'cursor=zzzz',
      `cursor=${Buffer.from('a1x').toString('base64url')}`,
      `grant_id=${'g'.repeat(301)}`,
    ];
    for (const qs of bad) {
      it(`?${qs} is 400 invalid_request (grant and subject)`, async () => {
        for (const t of [token, p.subjectToken]) {
          const r = await api(p.url, `/v1/audit/events?${qs}`, { token: t });
          assertError(r, 400, 'invalid_request');
        }
      });
    }
  });

  describe('broken tokens', () => {
    const endpoints = [
      ['GET', '/v1/profile/summary'],
      ['POST', '/v1/profile/query'],
      ['POST', '/v1/profile/effective'],
      ['GET', '/v1/consent/grants'],
      ['POST', '/v1/consent/revoke'],
      ['GET', '/v1/audit/events'],
      ['POST', '/v1/export'],
    ] as const;
    const headers = {
      garbage: 'Bearer not-a-token',
      'three garbage parts': 'Bearer aaa.bbb.ccc',
      'Bearer without a token': 'Bearer',
      'Basic credentials': 'Basic dXNlcjpwYXNz',
      'a 10 KB token': `Bearer ${'A'.repeat(10 * 1024)}`,
      'a 10 KB JWT-shaped token': `Bearer ${'A'.repeat(5000)}.${'B'.repeat(5000)}.${'C'.repeat(300)}`,
      'two tokens': 'Bearer abc def',
    };
    for (const [name, value] of Object.entries(headers)) {
      it(`${name} is 401 invalid_token everywhere`, async () => {
        for (const [method, path] of endpoints) {
          const r = await api(p.url, path, {
            method,
            headers: { authorization: value },
            ...(method === 'POST'
              ? { body: path === '/v1/consent/revoke' ? { grant_id: grantId } : {} }
              : {}),
          });
          assertInvalidTokenChallenge(r, 'invalid_token');
        }
        await assertGrantUntouched();
      });
    }
  });

  describe('routing', () => {
    it('an unknown path is a JSON 404 not_found', async () => {
      for (const [method, path] of [
        ['GET', '/v1/nothing'],
        ['POST', '/v1/profile/delete'],
        ['GET', '/v1/consent/grants/ppx:grant:x'],
        ['GET', '/.well-known/secret'],
      ] as const) {
        const r = await api(p.url, path, { method, token, ...(method === 'POST' ? { body: {} } : {}) });
        assertError(r, 404, 'not_found');
      }
    });

    const wrong = [
      ['GET', '/v1/profile/query'],
      ['GET', '/v1/profile/effective'],
      ['POST', '/v1/profile/summary'],
      ['DELETE', '/v1/consent/grants'],
      ['GET', '/v1/consent/revoke'],
      ['PUT', '/v1/export'],
      ['POST', '/v1/audit/events'],
      ['PATCH', '/.well-known/ppx-card.json'],
      ['DELETE', '/v1/extensions'],
    ] as const;

    it('a wrong method is a JSON 405 method_not_allowed', async () => {
      for (const [method, path] of wrong) {
        const r = await api(p.url, path, { method, token, ...(method !== 'GET' ? { body: {} } : {}) });
        assertError(r, 405, 'method_not_allowed');
      }
      await assertGrantUntouched();
    });

    it('a 405 names the allowed method in Allow (RFC 9110 §15.5.6)', async () => {
      for (const [method, path] of wrong) {
        const r = await api(p.url, path, { method, token, ...(method !== 'GET' ? { body: {} } : {}) });
        assert.equal(r.status, 405);
        const expected =
          path.startsWith('/v1/profile/q') || path.startsWith('/v1/profile/e') ? 'POST' : 'GET, HEAD';
        const allow = ['/v1/consent/revoke', '/v1/export'].includes(path) ? 'POST' : expected;
        assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
      }
    });

    it('so is a wrong method on every other surface: health, OAuth, the pages, the app', async () => {
      for (const [method, path, allow] of [
        ['POST', '/healthz', 'GET, HEAD'],
        ['DELETE', '/.well-known/jwks.json', 'GET, HEAD'],
        ['PUT', '/oauth/token', 'POST'],
        ['POST', '/app', 'GET, HEAD'],
        ['DELETE', '/consent/some-request', 'GET, HEAD'],
        ['PUT', '/mcp', 'DELETE, GET, HEAD, POST'],
      ] as const) {
        const r = await api(p.url, path, { method, body: {} });
        assertError(r, 405, 'method_not_allowed');
        assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
      }
      // Where nothing is, it stays 404.
      assertError(await api(p.url, '/nothing-here', { method: 'POST', body: {} }), 404, 'not_found');
    });
  });

  it('never answers 500 and never leaks internals, whatever the input', async () => {
    const odd = [
      '\u0000',
      '{"context": {"constructor": "x", "toString": 1, "hasOwnProperty": true}}',
      '{"requested_keys": ["core.", ".", "fragrance.", "__proto__.x", "constructor"]}',
      '{"requested_namespaces": ["__proto__", "constructor"]}',
      `{"requested_domain": "${'d'.repeat(100)}"}`,
      '{"min_confidence": 1e309}',
    ];
    for (const path of ['/v1/profile/query', '/v1/profile/effective']) {
      for (const body of odd) {
        const r = await api(p.url, path, { token, body });
        assert.ok(r.status < 500, `${path} ${body}: ${r.status} ${r.text}`);
        assert.ok(r.json !== undefined);
        assertNoTrace(r.text);
      }
    }
  });
});
