import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INITIALIZE, mcpGrant, toolCall } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Response headers on every surface (issue 10 item 8): `X-Content-Type-Options: nosniff` on every
// answer (JSON ones above all), `Cache-Control: no-store` on every /mcp answer (tool results
// carry claims), and `Strict-Transport-Security` on every answer when the base URL is https.

interface Probe {
  readonly name: string;
  readonly path: string;
  readonly method?: string;
  readonly body?: string;
  readonly type?: string;
  readonly auth?: 'subject' | 'grant' | 'mcp' | 'bad';
  readonly status: number;
  /** The answer is JSON (checked, so the list cannot drift from what it names). */
  readonly json: boolean;
  readonly mcp?: boolean;
  /** The answer is a stream that stays open (a grant's change notices): its head is checked, its body cancelled. */
  readonly stream?: true;
}

const MCP_ACCEPT = 'application/json, text/event-stream';

/** Representative requests: success and failure on each surface, documents, pages. */
const PROBES: readonly Probe[] = [
  // HTTP API
  { name: 'API read (grant)', path: '/v1/profile/summary', auth: 'grant', status: 200, json: true },
  {
    name: 'API query (subject)',
    path: '/v1/profile/query',
    method: 'POST',
    body: '{}',
    auth: 'subject',
    status: 200,
    json: true,
  },
  { name: 'API without a token', path: '/v1/profile/summary', status: 401, json: true },
  { name: 'API with a bad token', path: '/v1/profile/summary', auth: 'bad', status: 401, json: true },
  {
    name: 'API bad body',
    path: '/v1/profile/query',
    method: 'POST',
    body: '{',
    auth: 'subject',
    status: 400,
    json: true,
  },
  { name: 'API public list', path: '/v1/extensions', status: 200, json: true },
  {
    name: 'consent request refused',
    path: '/v1/consent/request',
    method: 'POST',
    body: '{}',
    status: 400,
    json: true,
  },
  { name: 'no such endpoint', path: '/v1/nothing-here', status: 404, json: true },
  { name: 'wrong method', path: '/v1/profile/summary', method: 'DELETE', status: 405, json: true },
  // documents
  { name: 'discovery card', path: '/.well-known/ppx-card.json', status: 200, json: true },
  { name: 'JWKS', path: '/.well-known/jwks.json', status: 200, json: true },
  { name: 'OpenAPI', path: '/openapi.json', status: 200, json: true },
  { name: 'health', path: '/healthz', status: 200, json: true },
  { name: 'MCP server metadata', path: '/.well-known/mcp.json', status: 200, json: true },
  // OAuth
  { name: 'AS metadata', path: '/.well-known/oauth-authorization-server', status: 200, json: true },
  { name: 'PRM', path: '/.well-known/oauth-protected-resource', status: 200, json: true },
  { name: 'PRM for /mcp', path: '/.well-known/oauth-protected-resource/mcp', status: 200, json: true },
  {
    name: 'token endpoint error',
    path: '/oauth/token',
    method: 'POST',
    body: 'grant_type=authorization_code',
    type: 'application/x-www-form-urlencoded',
    status: 401,
    json: true,
  },
  {
    name: 'registration',
    path: '/oauth/register',
    method: 'POST',
    body: JSON.stringify({ redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' }),
    status: 201,
    json: true,
  },
  {
    name: 'introspection refused',
    path: '/oauth/introspect',
    method: 'POST',
    body: 'token=x',
    type: 'application/x-www-form-urlencoded',
    status: 401,
    json: true,
  },
  // MCP
  {
    name: 'MCP initialize',
    path: '/mcp',
    method: 'POST',
    body: JSON.stringify(INITIALIZE),
    auth: 'mcp',
    status: 200,
    json: true,
    mcp: true,
  },
  {
    name: 'MCP tool call with claims',
    path: '/mcp',
    method: 'POST',
    body: JSON.stringify(toolCall('ppx_query_claims', {})),
    auth: 'mcp',
    status: 200,
    json: true,
    mcp: true,
  },
  {
    name: 'MCP without a token',
    path: '/mcp',
    method: 'POST',
    body: JSON.stringify(INITIALIZE),
    status: 401,
    json: true,
    mcp: true,
  },
  {
    name: 'MCP GET (the notice stream)',
    path: '/mcp',
    auth: 'mcp',
    status: 200,
    json: true,
    mcp: true,
    stream: true,
  },
  { name: 'MCP DELETE', path: '/mcp', method: 'DELETE', auth: 'mcp', status: 405, json: true, mcp: true },
  // pages
  { name: 'sign-in page', path: '/signin', status: 200, json: false },
  { name: 'stylesheet', path: '/web/style.css', status: 200, json: false },
  { name: 'authorize error page', path: '/oauth/authorize', status: 400, json: false },
  { name: 'consent page without a session', path: '/consent/gr_nothing', status: 200, json: false },
];

async function send(p: TestProvider, probe: Probe, tokens: Record<string, string>): Promise<Response> {
  const headers: Record<string, string> = {};
  if (probe.auth !== undefined) headers['authorization'] = `Bearer ${tokens[probe.auth]}`;
  if (probe.body !== undefined) headers['content-type'] = probe.type ?? 'application/json';
  if (probe.mcp) {
    headers['accept'] = MCP_ACCEPT;
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return fetch(p.url + probe.path, {
    method: probe.method ?? (probe.body !== undefined ? 'POST' : 'GET'),
    headers,
    redirect: 'manual',
    ...(probe.body !== undefined ? { body: probe.body } : {}),
  });
}

async function tokensFor(p: TestProvider): Promise<Record<string, string>> {
  return {
    subject: p.subjectToken,
    grant: (await p.grant()).token,
    mcp: (await mcpGrant(p)).token,
    bad: 'not-a-token',
  };
}

/** Walks every probe; `check` asserts on each answer. */
async function walk(p: TestProvider, check: (probe: Probe, r: Response) => void): Promise<void> {
  const tokens = await tokensFor(p);
  for (const probe of PROBES) {
    const r = await send(p, probe, tokens);
    const text = probe.stream ? '' : await r.text();
    if (probe.stream) await r.body?.cancel();
    assert.equal(r.status, probe.status, `${probe.name}: ${r.status} ${text.slice(0, 200)}`);
    const type = r.headers.get('content-type') ?? '';
    assert.equal(/json|event-stream/.test(type), probe.json, `${probe.name}: ${type}`);
    if (probe.name === 'MCP tool call with claims') {
      assert.match(text, /"claims"|claim_id/, 'the tool result carries claims');
    }
    check(probe, r);
  }
}

describe('response headers, http base URL', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('X-Content-Type-Options: nosniff on every answer, JSON or not', async () => {
    await walk(p, (probe, r) => {
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', probe.name);
    });
  });

  it('Cache-Control: no-store on every /mcp answer, and on every HTTP API answer to a bearer', async () => {
    await walk(p, (probe, r) => {
      if (probe.mcp || (probe.auth !== undefined && probe.path.startsWith('/v1/'))) {
        assert.equal(r.headers.get('cache-control'), 'no-store', probe.name);
      }
    });
  });

  it('no Strict-Transport-Security over an http base URL', async () => {
    await walk(p, (probe, r) => {
      assert.equal(r.headers.get('strict-transport-security'), null, probe.name);
    });
  });
});

describe('response headers, https base URL', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider({ env: { PPX_BASE_URL: 'https://ppx.example' } });
  });
  after(() => p.close());

  it('Strict-Transport-Security (one year) on every answer, pages included', async () => {
    await walk(p, (probe, r) => {
      assert.equal(r.headers.get('strict-transport-security'), 'max-age=31536000', probe.name);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', probe.name);
    });
  });
});
