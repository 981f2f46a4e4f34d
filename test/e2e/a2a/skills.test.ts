import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { type CryptoKey, importJWK } from 'jose';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { a2aClient, a2aGrant, ask, errorOf, isTask, resultOf, TaskState } from '../../support/a2a-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// The preference agent with @a2a-js/sdk's own client against a started server: the card (parsed
// back with its security schemes, its signature verified from the provider's JWKS), each skill
// under a valid grant, and the grant's refusals.

/** The JWKS key a card signature names (the provider's Ed25519 key: a CryptoKey). */
function keyFrom(jwks: { keys: { kid: string }[] }) {
  return async (kid: string) => (await importJWK(jwks.keys.find((k) => k.kid === kid)!)) as CryptoKey;
}

describe('A2A preference agent: the card and the skills', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  it('serves a signed A2A 1.0 card the SDK client parses with its security schemes intact', async () => {
    const { token } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const jwks = (await api(p.url, '/.well-known/jwks.json')).json;
    const card = await client.getAgentCard(undefined, verifyAgentCardSignature(keyFrom(jwks)));
    assert.deepEqual(card.skills.map((s) => s.id).sort(), [
      'compatibility_view',
      'get_effective_profile',
      'propose_update',
      'recommendation_basis',
      'scoped_query',
    ]);
    assert.equal(card.capabilities?.streaming, true);
    assert.equal(card.supportedInterfaces[0]?.url, `${p.url}/a2a`);
    assert.equal(card.securitySchemes.bearer?.scheme?.$case, 'httpAuthSecurityScheme');
    const oauth = card.securitySchemes.oauth2?.scheme;
    assert.equal(oauth?.$case, 'oauth2SecurityScheme');
    if (oauth?.$case === 'oauth2SecurityScheme' && oauth.value.flows?.flow?.$case === 'authorizationCode') {
      assert.equal(oauth.value.flows.flow.value.tokenUrl, `${p.url}/oauth/token`);
      assert.equal(oauth.value.flows.flow.value.pkceRequired, true);
      assert.deepEqual(Object.keys(oauth.value.flows.flow.value.scopes).sort(), [
        'ppx:propose_update',
        'ppx:read',
      ]);
    } else assert.fail('an authorization code flow');
    assert.equal(card.signatures.length, 1);
    // The PPX card points at it.
    const ppx = (await api(p.url, '/.well-known/ppx-card.json')).json;
    assert.deepEqual(ppx.transport_bindings.a2a, {
      supported: true,
      agent_card_uri: `${p.url}/.well-known/agent-card.json`,
    });
    // A tampered card fails verification.
    const raw = AgentCard.fromJSON(
      (await api(p.url, '/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } })).json,
    );
    const tampered = { ...raw, description: 'something else' };
    await assert.rejects(verifyAgentCardSignature(keyFrom(jwks))(tampered));
  });

  it('get_effective_profile: a completed task whose artifact is the PPX effective profile, as HTTP gives it', async () => {
    const { token, grant } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const answer = await client.sendMessage(
      ask('get_effective_profile', { context: { occasion: 'evening' } }),
    );
    const httpToken = (await issueGrantToken(p.deps, grant)).access_token;
    assert.ok(isTask(answer));
    assert.equal(answer.status?.state, TaskState.TASK_STATE_COMPLETED);
    const profile = resultOf(answer) as { claims: { claim_id: string }[] };
    const http = await api(p.url, '/v1/profile/effective', {
      token: httpToken,
      body: { context: { occasion: 'evening' } },
    });
    assert.deepEqual(
      profile.claims.map((c) => c.claim_id).sort(),
      (http.json.claims as { claim_id: string }[]).map((c) => c.claim_id).sort(),
    );
  });

  it('each skill answers under a grant that allows it: scoped_query, recommendation_basis, propose_update', async () => {
    const { token } = await a2aGrant(p, {
      allowed_operations: ['read', 'query', 'propose_update'],
      purposes: ['recommendation', 'explanation'],
    });
    const client = await a2aClient(p, token);
    const query = await client.sendMessage(ask('scoped_query', { requested_namespaces: ['core'] }));
    assert.ok(isTask(query) && query.status?.state === TaskState.TASK_STATE_COMPLETED, JSON.stringify(query));
    const claims = (resultOf(query) as { claims: { namespace: string }[] }).claims;
    assert.ok(claims.length > 0 && claims.every((c) => c.namespace === 'core'));

    const basis = await client.sendMessage(ask('recommendation_basis', { context: {} }));
    assert.ok(
      isTask(basis) && basis.status?.state === TaskState.TASK_STATE_COMPLETED,
      JSON.stringify(errorOf(basis as never)),
    );
    const view = resultOf(basis) as { view_kind: string; basis: string[] };
    assert.equal(view.view_kind, 'recommendation_basis');
    assert.ok(!JSON.stringify(view).includes('"value"'), 'a derived view, never raw claims');

    const proposal = await client.sendMessage(
      ask('propose_update', {
        claims: [
          {
            type: 'preference',
            namespace: 'core',
            key: 'novelty_tolerance',
            value: 0.3,
            confidence: 0.6,
            source: { kind: 'observed', origin: 'in_app_session' },
          },
        ],
      }),
    );
    assert.ok(isTask(proposal) && proposal.status?.state === TaskState.TASK_STATE_COMPLETED);
    assert.equal((resultOf(proposal) as { writeback: string }).writeback, 'proposal_created');
  });

  it('a grant without the operation or the purpose is refused at the HTTP level (403 insufficient_scope), nothing run', async () => {
    const readOnly = await a2aGrant(p, { allowed_operations: ['read'] });
    const client = await a2aClient(p, readOnly.token);
    await assert.rejects(client.sendMessage(ask('propose_update', { claims: [] })), (e: Error) =>
      /403|insufficient_scope/.test(String(e)),
    );
    const raw = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${readOnly.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'propose_update', params: { claims: [] } }),
    });
    assert.equal(raw.status, 403);
    assert.match(raw.headers.get('www-authenticate') ?? '', /insufficient_scope/);
    // recommendation_basis needs one of its purposes.
    const wrongPurpose = await a2aGrant(p, { purposes: ['matching'] });
    const c2 = await a2aClient(p, wrongPurpose.token);
    await assert.rejects(c2.sendMessage(ask('recommendation_basis', { context: {} })), (e: Error) =>
      /403|insufficient_scope/.test(String(e)),
    );
  });

  it('a revoked grant fails the very next call: 401 with a Bearer challenge', async () => {
    const { token, grant } = await a2aGrant(p);
    const client = await a2aClient(p, token);
    const before = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(before));
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(revoked.status, 200, revoked.text);
    await assert.rejects(client.sendMessage(ask('get_effective_profile', { context: {} })), (e: Error) =>
      /401|invalid_token|revoked/i.test(String(e)),
    );
    const raw = await fetch(`${p.url}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'get_effective_profile', params: {} }),
    });
    assert.equal(raw.status, 401);
    assert.match(
      raw.headers.get('www-authenticate') ?? '',
      /^Bearer realm="ppx", resource_metadata=.*\/\.well-known\/oauth-protected-resource\/a2a.*invalid_token/,
    );
  });

  it('tokens for other resources, owner tokens and no token are 401; a token for /a2a works only here', async () => {
    const http = await p.grant();
    for (const token of [http.token, p.subjectToken, undefined]) {
      const r = await fetch(`${p.url}/a2a`, {
        method: 'POST',
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'get_effective_profile', params: {} }),
      });
      assert.equal(r.status, 401);
      assert.ok(r.headers.get('www-authenticate')?.startsWith('Bearer realm="ppx", resource_metadata='));
    }
    const { token } = await a2aGrant(p);
    const elsewhere = await api(p.url, '/v1/profile/effective', { token, body: {} });
    assert.equal(elsewhere.status, 401);
  });

  it('a PPX error is a failed task carrying the PPX error body', async () => {
    const { token } = await a2aGrant(p, { purposes: ['matching'], allowed_domains: ['dating'] });
    const client = await a2aClient(p, token);
    const answer = await client.sendMessage(
      ask('compatibility_view', { counterpart_grant_id: 'ppx:grant:does-not-exist', context: {} }),
    );
    assert.ok(isTask(answer));
    assert.equal(answer.status?.state, TaskState.TASK_STATE_FAILED);
    const body = errorOf(answer);
    assert.equal(body?.error, 'not_found');
    assert.equal(typeof body?.error_description, 'string');
  });
});
