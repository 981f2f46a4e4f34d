import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FRAGRANCE, outcomeGrants, TRAVEL } from '../../../support/grant-packages.ts';
import { connect, INITIALIZE, mcpGrant, prmUrl, rawPost, toolCall } from '../../../support/mcp-client.ts';
import { publicClient, signedInCookie } from '../../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { assertNoSubjectId, Caller, ENDED, expire, mcpPackage, packageThroughAs, revoke } from './helpers.ts';

// A package token from the real authorization server, on /mcp; and the token's end: with no
// active child left it is inactive (HTTP 401 invalid_token). Plus the subject-id sweep.

describe('MCP package tokens: the real AS flow and the end of the token', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('a package token from the authorization server (resource = /mcp) works, child by child', async () => {
    const cookie = await signedInCookie(p);
    const client = await publicClient(p);
    const tokens = await packageThroughAs(p, cookie, client, [FRAGRANCE, TRAVEL]);
    // Child ids (checked against the grammar by outcomeGrants), as the tools list and take them.
    const [fragrance, travel] = outcomeGrants(tokens);
    assert.ok(fragrance && travel);
    const c = new Caller(await connect(p, tokens.access_token));
    await c.init();
    const listed = await c.call('ppx_list_granted_access');
    assert.deepEqual(
      listed.structuredContent.data.grants.map((g: { grant_id: string; status: string }) => [
        g.grant_id,
        g.status,
      ]),
      [
        [fragrance, 'active'],
        [travel, 'active'],
      ],
    );
    const r = await c.call('ppx_get_effective_profile', { grant_id: [fragrance, travel] });
    assert.equal(r.isError, false, JSON.stringify(r));
    assert.deepEqual(
      r.structuredContent.results.map((e: { grant_id: string }) => e.grant_id),
      [fragrance, travel],
    );
    // The subject withdraws one child: the other still answers, the ended one says so.
    await revoke(p, `ppx:grant:${travel}`);
    const after = await c.call('ppx_get_effective_profile', { grant_id: travel });
    assert.equal(after.content[0].text, ENDED(travel));
    assert.equal((await c.call('ppx_get_profile_summary', { grant_id: fragrance })).isError, undefined);
    // The token was issued for /mcp: the HTTP API refuses it.
    const http = await fetch(`${p.url}/v1/profile/summary`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(http.status, 401);
  });

  it('no active child left: HTTP 401 invalid_token with the resource metadata', async () => {
    const pkg = await mcpPackage(p, [{}, { allowed_namespaces: ['core'] }, { access_mode: 'single_use' }]);
    const [a, b, single] = pkg.grants;
    assert.equal((await rawPost(p, pkg.token, INITIALIZE)).status, 200);
    await revoke(p, a!.grant_id);
    await expire(p, b!.grant_id);
    assert.equal((await rawPost(p, pkg.token, INITIALIZE)).status, 200, 'one child is still active');
    await expire(p, single!.grant_id);
    for (const message of [INITIALIZE, toolCall('ppx_list_granted_access')]) {
      const r = await rawPost(p, pkg.token, message);
      assert.equal(r.status, 401, r.text);
      assert.equal(r.json.error, 'invalid_token');
      const challenge = r.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer realm="ppx", resource_metadata="[^"]+", error="invalid_token"/);
      assert.ok(challenge.includes(prmUrl(p)));
    }
  });

  it('no grantee-visible output carries the internal subject id', async () => {
    const pkg = await mcpPackage(p, [
      { allowed_operations: ['read', 'query', 'export', 'propose_update'] },
      { allowed_namespaces: ['core'] },
    ]);
    const [a, b] = pkg.grants;
    const single = await mcpGrant(p, { allowed_operations: ['read', 'query', 'export'] });
    const texts: string[] = [];
    for (const [token, ids] of [
      [pkg.token, [a!.grant_id, b!.grant_id]],
      [single.token, [single.grant.grant_id]],
    ] as const) {
      const c = new Caller(await connect(p, token));
      await c.init();
      await c.call('ppx_list_granted_access');
      for (const name of [
        'ppx_get_profile_summary',
        'ppx_query_claims',
        'ppx_get_effective_profile',
        'ppx_list_consent_grants',
        'ppx_export_profile',
      ]) {
        await c.call(name, { grant_id: ids[0] });
        await c.call(name, { grant_id: [...ids] });
        await c.call(name, { grant_id: 'ppx:grant:unknown' });
      }
      // The single grant lacks propose_update: refused by its grant before its arguments are read
      // (WIRE-NOTES §2.7), an HTTP 403 whose text counts too.
      await c.call('ppx_propose_updates', { grant_id: ids[0], claims: [] }).catch((e: Error) => {
        texts.push(e.message);
      });
      texts.push(...c.seen);
      texts.push((await rawPost(p, token, INITIALIZE)).text);
    }
    await revoke(p, b!.grant_id);
    const c = new Caller(await connect(p, pkg.token));
    await c.init();
    await c.call('ppx_get_effective_profile', { grant_id: [a!.grant_id, b!.grant_id] });
    await c.call('ppx_get_effective_profile', { grant_id: b!.grant_id, requested_domain: 'travel' });
    texts.push(...c.seen);
    assert.ok(texts.length > 40);
    assertNoSubjectId(p, texts);
  });
});
