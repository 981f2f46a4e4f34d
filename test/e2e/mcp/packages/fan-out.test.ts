import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantRecord } from '../../../../src/model/grant-record.ts';
import { childId } from '../../../../src/operations/child-ids.ts';
import { connect, mcpGrant } from '../../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { assertNoSubjectId, Caller, ENDED, expire, mcpPackage, revoke } from './helpers.ts';

// Read profile §3: a list of grant_ids fans out, one sub-call per named child, one entry each in
// structuredContent.results; isError only when every entry failed; never a cross-child result.

describe('MCP package tokens: fan-out', () => {
  let p: TestProvider;
  let core: GrantRecord;
  let fragrance: GrantRecord;
  let revoked: GrantRecord;
  let expired: GrantRecord;
  let c: Caller;

  before(async () => {
    p = await startTestProvider();
    const pkg = await mcpPackage(p, [
      { allowed_namespaces: ['core'] },
      { allowed_namespaces: ['fragrance'] },
      {},
      {},
    ]);
    [core, fragrance, revoked, expired] = pkg.grants as [GrantRecord, GrantRecord, GrantRecord, GrantRecord];
    await revoke(p, revoked.grant_id);
    await expire(p, expired.grant_id);
    c = new Caller(await connect(p, pkg.token));
    await c.init();
  });
  after(() => p.close());

  it('one entry per named child, each computed under its own grant only', async () => {
    // Named by child id, the canonical form; each entry is labelled with it, while the PPX
    // object inside (the `grant` echo) keeps the PPX grant id.
    const r = await c.call('ppx_get_effective_profile', {
      grant_id: [childId(core.grant_id), childId(fragrance.grant_id)],
    });
    assert.equal(r.isError, false, JSON.stringify(r));
    assert.equal(r.structuredContent.data, undefined);
    const [a, b] = r.structuredContent.results;
    assert.equal(a.grant_id, childId(core.grant_id));
    assert.equal(b.grant_id, childId(fragrance.grant_id));
    assert.equal(a.data.grant.grant_id, core.grant_id);
    assert.equal(b.data.grant.grant_id, fragrance.grant_id);
    assert.ok(a.data.claims.length > 0 && b.data.claims.length > 0);
    assert.ok(a.data.claims.every((x: { namespace: string }) => x.namespace === 'core'));
    assert.ok(b.data.claims.every((x: { namespace: string }) => x.namespace === 'fragrance'));
    // Each entry carries its own freshness; the envelope carries none.
    assert.deepEqual(
      a.data.freshness.map((f: { stream: string }) => f.stream),
      ['core'],
    );
    assert.deepEqual(Object.keys(r.structuredContent), ['results']);
  });

  it('mixed success: isError is false, the failed child has an error entry', async () => {
    const r = await c.call('ppx_get_profile_summary', { grant_id: [core.grant_id, revoked.grant_id] });
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent.results.length, 2);
    assert.equal(r.structuredContent.results[0].data.grant.grant_id, core.grant_id);
    const child = childId(revoked.grant_id);
    assert.deepEqual(r.structuredContent.results[1], {
      grant_id: child,
      error: { code: 'package_child_inactive', grant_id: child, message: ENDED(child) },
    });
  });

  it('every entry failed: isError is true, with the ended-access text', async () => {
    const r = await c.call('ppx_query_claims', { grant_id: [revoked.grant_id, expired.grant_id] });
    assert.equal(r.isError, true);
    assert.deepEqual(
      r.structuredContent.results.map((e: { error: { code: string } }) => e.error.code),
      ['package_child_inactive', 'package_child_inactive'],
    );
    assert.match(r.content[0].text, new RegExp(ENDED(childId(expired.grant_id)).replace(/\./g, '\\.')));
  });

  it('a scope failure is that child’s entry (insufficient_scope), not the call’s', async () => {
    const r = await c.call('ppx_query_claims', {
      grant_id: [core.grant_id, fragrance.grant_id],
      requested_namespaces: ['fragrance'],
    });
    assert.notEqual(r.isError, true);
    assert.equal(r.structuredContent.results[0].error.code, 'insufficient_scope');
    assert.ok(r.structuredContent.results[1].data.claims.length > 0);
  });

  it('a one-element list is still a fan-out', async () => {
    const r = await c.call('ppx_list_consent_grants', { grant_id: [fragrance.grant_id] });
    assert.equal(r.structuredContent.results.length, 1);
    assert.equal(r.structuredContent.results[0].data.grants[0].grant_id, fragrance.grant_id);
    assertNoSubjectId(p, c.seen);
  });

  it('a single-grant token may fan out over its one grant', async () => {
    const { token, grant } = await mcpGrant(p);
    const single = new Caller(await connect(p, token));
    await single.init();
    const r = await single.call('ppx_get_effective_profile', { grant_id: [grant.grant_id] });
    assert.equal(r.structuredContent.results[0].grant_id, childId(grant.grant_id));
  });
});
