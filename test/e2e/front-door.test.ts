import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantDraft } from '../../src/operations/grants/consent-grants.ts';
import { issueGrantToken } from '../../src/operations/tokens/issue-tokens.ts';
import { api, startTestProvider, type TestProvider } from '../support/provider.ts';

// One front door (surfaces/shared/front-door.ts): the same bad credential is refused the same way
// by every surface that takes tokens: the HTTP API, the AG-UI stream, /mcp and /a2a. Each
// refusal is a 401 (or a 403 for scope) whose `WWW-Authenticate` is byte for byte the same on
// every surface once the resource's own metadata URL is set aside, and that URL is the surface's.

type Surface = 'api' | 'agui' | 'mcp' | 'a2a';
const SURFACES: readonly Surface[] = ['api', 'agui', 'mcp', 'a2a'];

/** The resource a surface's tokens are for (the AG-UI stream is part of the HTTP API). */
const RESOURCE_PATH: Record<Surface, string> = { api: '', agui: '', mcp: '/mcp', a2a: '/a2a' };

interface Answer {
  readonly status: number;
  readonly challenge: string;
  readonly error: unknown;
}

describe('the front door: one challenge for every surface', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const resourceOf = (s: Surface) => `${p.url}${RESOURCE_PATH[s]}`;
  const metadataOf = (s: Surface) => `${p.url}/.well-known/oauth-protected-resource${RESOURCE_PATH[s]}`;

  /** A token for `surface`'s resource, under a fresh grant of the test provider. */
  async function tokenFor(s: Surface, draft: Partial<GrantDraft> = {}, ttlSeconds?: number) {
    const { grant } = await p.grant(draft);
    const token = (await issueGrantToken(p.deps, grant, ttlSeconds, resourceOf(s))).access_token;
    return { grant, token };
  }

  /** One request that needs a read, as each surface takes it. */
  async function call(s: Surface, authorization: string | undefined): Promise<Answer> {
    const auth = authorization === undefined ? {} : { authorization };
    const json = { 'content-type': 'application/json' };
    const requests: Record<Surface, () => Promise<Response>> = {
      api: () =>
        fetch(`${p.url}/v1/profile/effective`, { method: 'POST', headers: { ...json, ...auth }, body: '{}' }),
      agui: () =>
        fetch(`${p.url}/v1/agui/review`, {
          method: 'POST',
          headers: { ...json, accept: 'text/event-stream', ...auth },
          body: JSON.stringify({
            threadId: 't',
            runId: 'r',
            messages: [],
            tools: [],
            context: [],
            state: {},
          }),
        }),
      mcp: () =>
        fetch(`${p.url}/mcp`, {
          method: 'POST',
          headers: {
            ...json,
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            ...auth,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'ppx_get_effective_profile', arguments: {} },
          }),
        }),
      a2a: () =>
        fetch(`${p.url}/a2a`, {
          method: 'POST',
          headers: { ...json, ...auth },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'get_effective_profile', params: {} }),
        }),
    };
    const r = await requests[s]();
    const text = await r.text();
    await r.body?.cancel().catch(() => undefined);
    let error: unknown;
    try {
      error = (JSON.parse(text) as { error?: unknown }).error;
    } catch {
      error = undefined;
    }
    return { status: r.status, challenge: r.headers.get('www-authenticate') ?? '', error };
  }

  /**
   * The same credential (made per surface by `authorization`) sent to every surface: the same
   * status, the same PPX code and the same challenge but for its metadata URL, which is the surface's.
   */
  async function sameEverywhere(authorization: (s: Surface) => Promise<string | undefined>) {
    const answers = new Map<Surface, Answer>();
    for (const s of SURFACES) answers.set(s, await call(s, await authorization(s)));
    const shapes = SURFACES.map((s) => {
      const a = answers.get(s)!;
      const own = `resource_metadata="${metadataOf(s)}"`;
      assert.ok(a.challenge.includes(own), `${s}: ${a.challenge} names ${own}`);
      return {
        status: a.status,
        error: a.error,
        challenge: a.challenge.replace(own, 'resource_metadata="…"'),
      };
    });
    for (const [i, shape] of shapes.entries())
      assert.deepEqual(shape, shapes[0], `${SURFACES[i]} answers as api does`);
    return shapes[0]!;
  }

  it('no token: a bare challenge (RFC 6750 §3.1)', async () => {
    const shape = await sameEverywhere(async () => undefined);
    assert.equal(shape.status, 401);
    assert.equal(shape.challenge, 'Bearer realm="ppx", resource_metadata="…"');
  });

  it('a malformed token and a header that is not Bearer', async () => {
    const garbled = await sameEverywhere(async () => 'Bearer not-a-jwt');
    assert.equal(garbled.status, 401);
    assert.match(
      garbled.challenge,
      /^Bearer realm="ppx", resource_metadata="…", error="invalid_token", error_description="[^"]+"$/,
    );
    const basic = await sameEverywhere(async () => 'Basic abc');
    assert.equal(basic.status, 401);
    assert.match(basic.challenge, /error="invalid_token"/);
  });

  it('a forged signature', async () => {
    const shape = await sameEverywhere(async (s) => {
      const [h, b] = (await tokenFor(s)).token.split('.');
      return `Bearer ${h}.${b}.${'A'.repeat(86)}`;
    });
    assert.equal(shape.status, 401);
    assert.match(shape.challenge, /error="invalid_token"/);
  });

  it('an expired token', async () => {
    const shape = await sameEverywhere(async (s) => `Bearer ${(await tokenFor(s, {}, -120)).token}`);
    assert.equal(shape.status, 401);
    assert.match(shape.challenge, /error="invalid_token", error_description="the access token has expired"$/);
  });

  it("a token for another surface's resource", async () => {
    const other: Record<Surface, Surface> = { api: 'mcp', agui: 'a2a', mcp: 'a2a', a2a: 'api' };
    const shape = await sameEverywhere(async (s) => `Bearer ${(await tokenFor(other[s])).token}`);
    assert.equal(shape.status, 401);
    assert.match(
      shape.challenge,
      /error="invalid_token", error_description="the access token was issued for another resource"$/,
    );
  });

  it('a token whose grant expired, and one whose grant was revoked', async () => {
    const expiresAt = new Date(Date.now() - 60_000).toISOString();
    const expired = await sameEverywhere(
      async (s) => `Bearer ${(await tokenFor(s, { expires_at: expiresAt })).token}`,
    );
    assert.equal(expired.status, 401);
    assert.equal(expired.error, 'grant_expired');
    assert.match(expired.challenge, /error="invalid_token"/);

    const revoked = await sameEverywhere(async (s) => {
      const { grant, token } = await tokenFor(s);
      const r = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: grant.grant_id },
      });
      assert.equal(r.status, 200, r.text);
      return `Bearer ${token}`;
    });
    assert.equal(revoked.status, 401);
    assert.equal(revoked.error, 'grant_revoked');
    assert.match(
      revoked.challenge,
      /error="invalid_token", error_description="the grant behind this token was revoked by the subject"$/,
    );
  });

  it('a grant that does not allow the operation: 403 insufficient_scope, the same step-up challenge', async () => {
    // The AG-UI stream is the person's: a grant's scope is not what it refuses, so it is not compared.
    const scoped: Surface[] = ['api', 'mcp', 'a2a'];
    const answers = [];
    for (const s of scoped) {
      const { token } = await tokenFor(s, { allowed_operations: ['propose_update'] });
      const a = await call(s, `Bearer ${token}`);
      assert.ok(a.challenge.includes(`resource_metadata="${metadataOf(s)}"`), `${s}: ${a.challenge}`);
      answers.push({ status: a.status, error: a.error, challenge: a.challenge.replace(metadataOf(s), '…') });
    }
    for (const a of answers) assert.deepEqual(a, answers[0]);
    assert.equal(answers[0]!.status, 403);
    assert.equal(answers[0]!.error, 'insufficient_scope');
    assert.match(
      answers[0]!.challenge,
      /^Bearer realm="ppx", resource_metadata="…", error="insufficient_scope", error_description="[^"]+"$/,
    );
  });
});
