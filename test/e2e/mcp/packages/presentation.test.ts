import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantRecord } from '../../../../src/model/grant-record.ts';
import { setChangeTimes } from '../../../support/change-times.ts';
import { connect, prmUrl } from '../../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { Caller, mcpPackage } from './helpers.ts';

// Read profile §3: every claim carries instance_id beside its id (here: `claim_instances`, aligned
// with `claims`), and freshness sits at structuredContent.data.freshness, per stream and instance,
// coarsened to the granularity the protected resource metadata declares.

describe('MCP package tokens: instance ids and freshness', () => {
  let p: TestProvider;
  let grant: GrantRecord;
  let c: Caller;
  let handle: string;

  before(async () => {
    p = await startTestProvider();
    const pkg = await mcpPackage(p, [{ allowed_operations: ['read', 'query', 'export'] }]);
    grant = pkg.grants[0]!;
    handle = p.deps.pairwise.profile(grant.profile_id, grant.grantee_id);
    c = new Caller(await connect(p, pkg.token));
    await c.init();
  });
  after(() => p.close());

  it('the protected resource metadata declares the freshness granularity', async () => {
    const prm = await api(p.url, new URL(prmUrl(p)).pathname);
    assert.equal(prm.status, 200);
    assert.equal(prm.json.resource, `${p.url}/mcp`);
    assert.equal(prm.json.pdpp_freshness_granularity, 'PT1H');
    const apiPrm = await api(p.url, '/.well-known/oauth-protected-resource');
    assert.equal(apiPrm.json.pdpp_freshness_granularity, undefined, 'only the MCP resource states it');
  });

  for (const name of [
    'ppx_get_effective_profile',
    'ppx_query_claims',
    'ppx_get_profile_summary',
    'ppx_export_profile',
  ]) {
    it(`${name}: each claim id has its pairwise instance_id beside it`, async () => {
      const r = await c.call(name, { grant_id: grant.grant_id });
      assert.equal(r.isError, undefined, JSON.stringify(r));
      const data = r.structuredContent.data;
      assert.ok(data.claims.length > 0);
      assert.deepEqual(
        data.claim_instances,
        data.claims.map((x: { claim_id: string }) => ({ id: x.claim_id, instance_id: handle })),
      );
    });
  }

  it('freshness: per stream and instance, last_success_at = when claims there last changed, truncated to the hour', async () => {
    const r = await c.call('ppx_get_effective_profile', { grant_id: grant.grant_id });
    const data = r.structuredContent.data;
    // Every stored claim of core and fragrance is visible to this grant (fragrance domain, no keys).
    const changes = await p.deps.store.listClaimChanges(grant.profile_id);
    const hourOf = (at: string) => new Date(Math.floor(Date.parse(at) / 3_600_000) * 3_600_000).toISOString();
    const streams = [...new Set(data.claims.map((x: { namespace: string }) => x.namespace))].sort();
    assert.deepEqual(
      data.freshness,
      streams.map((stream) => {
        const at = changes
          .filter((ch) => ch.namespace === stream)
          .map((ch) => ch.changed_at)
          .sort()
          .at(-1);
        assert.ok(at, `the store knows when ${stream} last changed`);
        return { stream, instance_id: handle, last_success_at: hourOf(at) };
      }),
    );
    for (const f of data.freshness) assert.match(f.last_success_at, /T\d\d:00:00\.000Z$/);
    assert.equal(r.structuredContent.freshness, undefined, 'not at the top level');
  });

  it('freshness: a write moves its own stream only', async () => {
    // Every stream last changed long ago (no API sets that: the store's table, directly).
    await setChangeTimes(p.database, grant.profile_id, '2026-01-01T05:30:00.000Z');
    const stamps = async () =>
      Object.fromEntries(
        (
          await c.call('ppx_get_effective_profile', { grant_id: grant.grant_id })
        ).structuredContent.data.freshness.map((f: { stream: string; last_success_at: string }) => [
          f.stream,
          f.last_success_at,
        ]),
      );
    assert.deepEqual(await stamps(), {
      core: '2026-01-01T05:00:00.000Z',
      fragrance: '2026-01-01T05:00:00.000Z',
    });
    const fragrance = (await p.deps.store.listClaims(grant.profile_id)).find(
      (x) => x.namespace === 'fragrance',
    );
    assert.ok(fragrance);
    const before = Date.now();
    const deleted = await api(p.url, `/v1/profile/claims/${encodeURIComponent(fragrance.claim_id)}`, {
      method: 'DELETE',
      token: p.subjectToken,
    });
    assert.equal(deleted.status, 200, deleted.text);
    const after = await stamps();
    assert.equal(after['core'], '2026-01-01T05:00:00.000Z', 'core did not change');
    const hour = (t: number) => new Date(Math.floor(t / 3_600_000) * 3_600_000).toISOString();
    assert.ok([hour(before), hour(Date.now())].includes(after['fragrance']), after['fragrance']);
  });
});
