import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantDraft } from '../../src/operations/grants/consent-grants.ts';
import { issueGrantToken, issueSubjectToken } from '../../src/operations/tokens/issue-tokens.ts';
import { type DpopKey, dpopKey, proof, unsigned } from '../support/dpop.ts';
import { startTestProvider, type TestProvider } from '../support/provider.ts';

// DPoP-bound tokens (RFC 9449 §7) on every surface that takes tokens: the HTTP API, the AG-UI
// stream (a subject's token), /mcp and /a2a. A valid proof passes on each; each hand-made bad
// proof is refused the same way on each (401, a `DPoP` challenge naming invalid_dpop_proof),
// never a 500.

type Surface = 'api' | 'agui' | 'mcp' | 'a2a';
const SURFACES: readonly Surface[] = ['api', 'agui', 'mcp', 'a2a'];
const PATH: Record<Surface, string> = {
  api: '/v1/profile/effective',
  agui: '/v1/agui/review',
  mcp: '/mcp',
  a2a: '/a2a',
};
const RESOURCE_PATH: Record<Surface, string> = { api: '', agui: '', mcp: '/mcp', a2a: '/a2a' };

describe('DPoP on every surface', () => {
  let p: TestProvider;
  let key: DpopKey;
  before(async () => {
    p = await startTestProvider();
    key = await dpopKey();
  });
  after(() => p.close());

  /** A token bound to `key` for the surface: a grant's, or the person's own on the AG-UI stream. */
  async function boundToken(s: Surface, draft: Partial<GrantDraft> = {}): Promise<string> {
    if (s === 'agui') return (await issueSubjectToken(p.deps, p.subjectId, undefined, key.jkt)).access_token;
    const { grant } = await p.grant(draft);
    return (await issueGrantToken(p.deps, grant, undefined, `${p.url}${RESOURCE_PATH[s]}`, key.jkt))
      .access_token;
  }

  async function call(s: Surface, headers: Record<string, string>) {
    const json = { 'content-type': 'application/json' };
    const bodies: Record<Surface, unknown> = {
      api: {},
      agui: { threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {} },
      mcp: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ppx_get_effective_profile', arguments: {} },
      },
      a2a: { jsonrpc: '2.0', id: 1, method: 'get_effective_profile', params: {} },
    };
    const extra: Record<Surface, Record<string, string>> = {
      api: {},
      agui: { accept: 'text/event-stream' },
      mcp: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      a2a: {},
    };
    const r = await fetch(`${p.url}${PATH[s]}`, {
      method: 'POST',
      headers: { ...json, ...extra[s], ...headers },
      body: JSON.stringify(bodies[s]),
    });
    const text = s === 'agui' && r.status === 200 ? '' : await r.text();
    await r.body?.cancel().catch(() => undefined);
    return { status: r.status, challenge: r.headers.get('www-authenticate') ?? '', text };
  }

  const htu = (s: Surface) => `${p.url}${PATH[s]}`;

  it('a valid proof by the bound key passes on every surface; the token as Bearer does not', async () => {
    for (const s of SURFACES) {
      const token = await boundToken(s);
      const dpop = await proof(key, { htm: 'POST', htu: htu(s), accessToken: token });
      const ok = await call(s, { authorization: `DPoP ${token}`, dpop });
      assert.equal(ok.status, 200, `${s}: ${ok.text}`);
      const bearer = await call(s, { authorization: `Bearer ${token}` });
      assert.equal(bearer.status, 401, s);
      assert.match(bearer.challenge, /^DPoP realm="ppx", resource_metadata="[^"]+", error="invalid_token"/);
    }
  });

  it('a bearer token sent with the DPoP scheme is refused; as Bearer it works as before', async () => {
    const { token } = await p.grant();
    const dpop = await proof(key, { htm: 'POST', htu: htu('api'), accessToken: token });
    const asDpop = await call('api', { authorization: `DPoP ${token}`, dpop });
    assert.equal(asDpop.status, 401);
    assert.match(
      asDpop.challenge,
      /error="invalid_token", error_description="this access token is not DPoP-bound/,
    );
    assert.equal((await call('api', { authorization: `Bearer ${token}` })).status, 200);
  });

  /** Each bad proof, made for a surface and its token: one thing broken at a time. */
  const BAD: Record<string, (s: Surface, token: string) => Promise<string | undefined>> = {
    'no proof': async () => undefined,
    'another key': async (s, token) =>
      proof(await dpopKey(), { htm: 'POST', htu: htu(s), accessToken: token }),
    'another URL (htu)': async (_s, token) =>
      proof(key, { htm: 'POST', htu: `${p.url}/somewhere/else`, accessToken: token }),
    'another method (htm)': async (s, token) => proof(key, { htm: 'GET', htu: htu(s), accessToken: token }),
    'an old iat': async (s, token) =>
      proof(key, { htm: 'POST', htu: htu(s), accessToken: token, iat: Math.floor(Date.now() / 1000) - 600 }),
    'an iat in the future': async (s, token) =>
      proof(key, { htm: 'POST', htu: htu(s), accessToken: token, iat: Math.floor(Date.now() / 1000) + 600 }),
    'no ath': async (s, token) => proof(key, { htm: 'POST', htu: htu(s), accessToken: token, noAth: true }),
    'the ath of another token': async (s) => proof(key, { htm: 'POST', htu: htu(s), accessToken: 'other' }),
    'typ JWT': async (s, token) => proof(key, { htm: 'POST', htu: htu(s), accessToken: token, typ: 'JWT' }),
    'a header jwk other than the signing key': async (s, token) =>
      proof(key, { htm: 'POST', htu: htu(s), accessToken: token, headerJwk: (await dpopKey()).publicJwk }),
    'alg none': async (s) => unsigned({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk }, { htu: htu(s) }),
    'a symmetric alg': async (s) =>
      unsigned({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'AAAA' } }, { htu: htu(s) }),
    'a private key in jwk': async (s) =>
      unsigned({ alg: 'ES256', typ: 'dpop+jwt', jwk: { ...key.publicJwk, d: 'AAAA' } }, { htu: htu(s) }),
    'bad base64': async () => 'e30.%%%.abc',
    'a header that is not JSON': async () => `${Buffer.from('not json').toString('base64url')}.e30.abc`,
    // Past the proof's own bound (8,192) but under Node's header limit (16 KB, a 431 before any of ours).
    'a huge header': async () => `${'a'.repeat(9_000)}.b.c`,
    'two proofs': async (s, token) => {
      const one = await proof(key, { htm: 'POST', htu: htu(s), accessToken: token });
      return `${one}, ${one}`;
    },
  };

  for (const [name, make] of Object.entries(BAD)) {
    it(`refuses ${name} the same way on every surface`, async () => {
      const shapes = [];
      for (const s of SURFACES) {
        const token = await boundToken(s);
        const dpop = await make(s, token);
        const r = await call(s, { authorization: `DPoP ${token}`, ...(dpop !== undefined ? { dpop } : {}) });
        assert.equal(r.status, 401, `${s}: ${r.text}`);
        const own = /resource_metadata="[^"]+"/;
        assert.match(
          r.challenge,
          /^DPoP realm="ppx", resource_metadata="[^"]+", error="invalid_dpop_proof", /,
        );
        assert.match(r.challenge, /algs="ES256 /);
        assert.match(r.challenge, /error_description="the DPoP proof [^"]+"/);
        shapes.push(r.challenge.replace(own, '').replace(htu(s), '…'));
      }
      for (const shape of shapes) assert.equal(shape, shapes[0]);
    });
  }

  it('a proof works once (jti replay), on every surface', async () => {
    for (const s of SURFACES) {
      const token = await boundToken(s);
      const dpop = await proof(key, { htm: 'POST', htu: htu(s), accessToken: token });
      assert.equal((await call(s, { authorization: `DPoP ${token}`, dpop })).status, 200, s);
      const again = await call(s, { authorization: `DPoP ${token}`, dpop });
      assert.equal(again.status, 401, s);
      assert.match(
        again.challenge,
        /error="invalid_dpop_proof", error_description="the DPoP proof was already used/,
      );
    }
  });

  it('a refusal decided after the door keeps the DPoP scheme: insufficient_scope on HTTP, MCP and A2A', async () => {
    // RFC 9449 §7.1: the step-up challenge of a request made with DPoP is a DPoP challenge.
    const answers = [];
    for (const s of ['api', 'mcp', 'a2a'] as const) {
      const token = await boundToken(s, { allowed_operations: ['propose_update'] });
      const dpop = await proof(key, { htm: 'POST', htu: htu(s), accessToken: token });
      const r = await call(s, { authorization: `DPoP ${token}`, dpop });
      assert.equal(r.status, 403, `${s}: ${r.text}`);
      assert.match(
        r.challenge,
        /^DPoP realm="ppx", resource_metadata="[^"]+", error="insufficient_scope", error_description="[^"]+", algs="ES256 /,
        s,
      );
      answers.push(r.challenge.replace(/resource_metadata="[^"]+"/, ''));
    }
    for (const a of answers) assert.equal(a, answers[0]);
  });
});
