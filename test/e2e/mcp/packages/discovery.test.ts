import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantRecord } from '../../../../src/model/grant-record.ts';
import { childId } from '../../../../src/operations/child-ids.ts';
import { CHILD_ID } from '../../../support/grant-packages.ts';
import { connect, mcpGrant } from '../../../support/mcp-client.ts';
import { publicClient } from '../../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { assertNoSubjectId, Caller, expire, mcpPackage, revoke } from './helpers.ts';

// Read profile §3: ppx_list_granted_access, per child: grant_id, source, purposes, processing
// permissions, streams with pairwise instance_ids, access mode, current status; nothing else.

describe('MCP package tokens: ppx_list_granted_access', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('lists every child with its source, purposes, permissions, streams, pairwise handles, mode and status', async () => {
    // Another grant of the same app, outside the package: never listed.
    const client = await publicClient(p);
    const outside = await p.grant({
      client_id: client,
      allowed_namespaces: ['travel'],
      allowed_domains: ['travel'],
    });
    const pkg = await mcpPackage(
      p,
      [
        { allowed_namespaces: ['core'], allowed_operations: ['read'] },
        { allowed_operations: ['read', 'query', 'propose_update'], purposes: ['personalization'] },
        { access_mode: 'single_use' },
      ],
      client,
    );
    const [a, b, single] = pkg.grants as [GrantRecord, GrantRecord, GrantRecord];
    await expire(p, single.grant_id);
    const c = new Caller(await connect(p, pkg.token));
    await c.init();
    const r = await c.call('ppx_list_granted_access');
    assert.equal(r.isError, undefined, JSON.stringify(r));
    const grants = r.structuredContent.data.grants;
    // Each child is named by its child id (WIRE-NOTES §4), as the tools' grant_id takes it.
    assert.deepEqual(
      grants.map((g: { grant_id: string }) => g.grant_id),
      [childId(a.grant_id), childId(b.grant_id), childId(single.grant_id)],
      'the children, and not the app’s other grant',
    );
    for (const g of grants) assert.match(g.grant_id, CHILD_ID);
    assert.ok(!JSON.stringify(r).includes(childId(outside.grant.grant_id)));
    const handle = p.deps.pairwise.profile(a.profile_id, client);
    assert.notEqual(handle, a.profile_id);
    assert.deepEqual(grants[0], {
      grant_id: childId(a.grant_id),
      source: { provider_id: p.deps.provider.providerId },
      purposes: ['recommendation'],
      processing_permissions: ['read'],
      streams: [{ namespace: 'core', instance_ids: [handle] }],
      access_mode: 'continuous',
      status: 'active',
      expires_at: a.expires_at,
    });
    assert.deepEqual(grants[1].purposes, ['personalization']);
    assert.deepEqual(grants[1].processing_permissions, ['read', 'query', 'propose_update']);
    assert.deepEqual(grants[1].streams, [
      { namespace: 'core', instance_ids: [handle] },
      { namespace: 'fragrance', instance_ids: [handle] },
    ]);
    assert.equal(grants[2].access_mode, 'single_use');
    assert.equal(grants[2].status, 'expired');
    // No records: no claim ids, values, or internal ids.
    assert.doesNotMatch(JSON.stringify(r), /ppx:claim:|"value"|profile_id/);
    assert.ok(!JSON.stringify(r).includes(a.profile_id));
    assertNoSubjectId(p, c.seen);
  });

  it('reflects a revocation on the very next call', async () => {
    const pkg = await mcpPackage(p, [{}, { allowed_namespaces: ['core'] }]);
    const [a, b] = pkg.grants as [GrantRecord, GrantRecord];
    const c = new Caller(await connect(p, pkg.token));
    await c.init();
    const status = async () =>
      (await c.call('ppx_list_granted_access')).structuredContent.data.grants.map(
        (g: { status: string }) => g.status,
      );
    assert.deepEqual(await status(), ['active', 'active']);
    await revoke(p, b.grant_id);
    assert.deepEqual(await status(), ['active', 'revoked']);
    assert.equal((await c.call('ppx_get_profile_summary', { grant_id: a.grant_id })).isError, undefined);
  });

  it('takes no grant_id', async () => {
    const pkg = await mcpPackage(p, [{}]);
    const c = new Caller(await connect(p, pkg.token));
    await c.init();
    const r = await c.call('ppx_list_granted_access', { grant_id: pkg.grants[0]!.grant_id });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.error.code, 'invalid_request');
  });

  it('with a single-grant token it lists that one grant', async () => {
    const { token, grant } = await mcpGrant(p);
    const c = new Caller(await connect(p, token));
    await c.init();
    const r = await c.call('ppx_list_granted_access');
    assert.deepEqual(
      r.structuredContent.data.grants.map((g: { grant_id: string }) => g.grant_id),
      [childId(grant.grant_id)],
    );
  });
});
