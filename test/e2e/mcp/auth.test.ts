import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import {
  connect,
  INITIALIZE,
  mcpGrant,
  mcpUrl,
  prmUrl,
  rawPost,
  toolCall,
} from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// WIRE-NOTES §5 first two rows, and the Origin check: every refusal happens before the
// transport, with the RFC 9728 challenge that lets an OAuth client discover the AS.

const NO_TRIGGER_WORDS = /\b401\b|unauthori[sz]ed|forbidden/i;

describe('MCP authentication', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  function assertChallenge(r: { status: number; headers: Headers; text: string }, presented: boolean) {
    assert.equal(r.status, 401, r.text);
    const challenge = r.headers.get('www-authenticate') ?? '';
    assert.ok(challenge.startsWith(`Bearer realm="ppx", resource_metadata="${prmUrl(p)}"`), challenge);
    assert.equal(challenge.includes('error="invalid_token"'), presented, challenge);
    assert.doesNotMatch(r.text, NO_TRIGGER_WORDS);
    assert.doesNotMatch(challenge.replace(/resource_metadata="[^"]*"/, ''), NO_TRIGGER_WORDS);
  }

  it('answers a request without a token with a bare challenge naming the resource metadata', async () => {
    assertChallenge(await rawPost(p, undefined, INITIALIZE), false);
  });

  it('refuses a malformed token, a non-bearer header and a token of another issuer', async () => {
    assertChallenge(await rawPost(p, 'not-a-jwt', INITIALIZE), true);
    assertChallenge(await rawPost(p, undefined, INITIALIZE, { authorization: 'Basic abc' }), true);
    const { token } = await mcpGrant(p);
    const [h, b] = token.split('.');
    assertChallenge(await rawPost(p, `${h}.${b}.${'A'.repeat(86)}`, INITIALIZE), true);
  });

  it('refuses a grant token minted for the HTTP API audience', async () => {
    const { grant } = await p.grant();
    const httpToken = (await issueGrantToken(p.deps, grant)).access_token;
    const r = await rawPost(p, httpToken, INITIALIZE);
    assertChallenge(r, true);
    assert.match(r.json.error_description, /another resource/);
    // …and the MCP token is refused by the HTTP API in turn.
    const { token } = await mcpGrant(p);
    assert.equal((await api(p.url, '/v1/profile/summary', { token })).status, 401);
  });

  it('refuses owner tokens, for either audience', async () => {
    assertChallenge(await rawPost(p, p.subjectToken, INITIALIZE), true);
    const ownerMcp = await p.deps.tokens.mint(
      { kind: 'subject', subjectId: p.subjectId },
      600,
      new Date(),
      mcpUrl(p),
    );
    const r = await rawPost(p, ownerMcp, INITIALIZE);
    assertChallenge(r, true);
    assert.match(r.json.error_description, /owner token/);
  });

  it('refuses a token whose grant expired', async () => {
    const { token } = await mcpGrant(p, { expires_at: new Date(Date.now() - 1000).toISOString() });
    const r = await rawPost(p, token, INITIALIZE);
    assertChallenge(r, true);
    assert.equal(r.json.error, 'grant_expired');
  });

  it('revocation takes effect on the very next call', async () => {
    const { grant, token } = await mcpGrant(p);
    const client = await connect(p, token);
    const first = await client.callTool({ name: 'ppx_get_profile_summary', arguments: {} });
    assert.equal(first.isError, undefined);
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(revoked.status, 200);
    const r = await rawPost(p, token, toolCall('ppx_get_profile_summary'));
    assertChallenge(r, true);
    assert.equal(r.json.error, 'grant_revoked');
    await assert.rejects(
      client.callTool({ name: 'ppx_get_profile_summary', arguments: {} }),
      /401|grant_revoked/,
    );
    await client.close();
  });

  it('refuses a browser Origin other than the provider’s own, before authentication', async () => {
    const { token } = await mcpGrant(p);
    const foreign = await rawPost(p, token, INITIALIZE, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get('www-authenticate'), null);
    const anonymous = await rawPost(p, undefined, INITIALIZE, { origin: 'https://evil.example' });
    assert.equal(anonymous.status, 403);
    const own = await rawPost(p, token, INITIALIZE, { origin: new URL(p.url).origin });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.result.protocolVersion, '2025-11-25');
  });

  it("negotiates older protocol revisions; DELETE is 405 (no session), GET a grant's notice stream", async () => {
    const { token } = await mcpGrant(p);
    const old = await rawPost(
      p,
      token,
      { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' } },
      { 'mcp-protocol-version': '2025-03-26' },
    );
    assert.equal(old.json.result.protocolVersion, '2025-03-26');
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${p.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      if (method === 'GET') {
        // A grant's change notices (subscriptions.test.ts); no session behind it.
        assert.equal(r.status, 200);
        await r.body?.cancel();
      } else {
        assert.equal(r.status, 405);
        assert.equal(r.headers.get('allow'), 'POST');
      }
      const none = await fetch(`${p.url}/mcp`, { method });
      assert.equal(none.status, 401, 'authentication comes first');
    }
  });

  it('publishes /.well-known/mcp.json and the discovery card binding', async () => {
    const meta = await api(p.url, '/.well-known/mcp.json');
    assert.equal(meta.status, 200);
    assert.equal(meta.json.endpoint, mcpUrl(p));
    assert.equal(meta.json.transport.type, 'streamable-http');
    assert.equal(meta.json.auth.protected_resource_metadata, prmUrl(p));
    const card = await api(p.url, '/.well-known/ppx-card.json');
    assert.deepEqual(card.json.transport_bindings.mcp, { supported: true, server_uri: mcpUrl(p) });
    const prm = await api(p.url, '/.well-known/oauth-protected-resource/mcp');
    assert.equal(prm.json.resource, mcpUrl(p));
  });
});
