import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { connect, mcpGrant } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Reads reuse their work between requests (a shared resolution per stored version, scope and
// context; one document per second and caller-facing members; one presentation and JSON text per
// client: docs/benchmarks.md). These tests try to make that reuse leak: concurrent reads of one
// profile by other clients and other grants, in the same second, with the same context, and a
// change or a revocation between two reads of the same second.

const CONTEXT = { occasion: 'date_night' };

interface Data {
  subject_id: string;
  generated_at: string;
  grant: { grant_id: string; allowed_namespaces: string[] };
  claims: { claim_id: string; namespace: string }[];
  claim_instances: { id: string; instance_id: string }[];
  freshness: { stream: string; instance_id: string; last_success_at: string }[];
}

async function read(client: Client): Promise<Data> {
  const r = await client.callTool({ name: 'ppx_get_effective_profile', arguments: { context: CONTEXT } });
  assert.equal(r.isError, undefined, JSON.stringify(r.content));
  const data = (r.structuredContent as { data: Data }).data;
  // The text copy is the JSON of exactly this data.
  assert.equal((r.content as { text: string }[])[0]?.text, JSON.stringify(data));
  return data;
}

describe('shared read work never crosses callers, versions or revocations', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
    assert.ok((await registerClient(p.deps, { client_id: 'other-app', name: 'Other app' })).ok);
  });
  after(() => p.close());

  it('keeps each concurrent caller in its own grant, ids and scope', async () => {
    const a = await mcpGrant(p); // fragrance-demo: core + fragrance
    const c = await mcpGrant(p); // fragrance-demo again: same scope, another grant
    const b = await mcpGrant(p, { client_id: 'other-app', allowed_namespaces: ['core'] });
    const clients = await Promise.all([a, b, c].map((g) => connect(p, g.token)));
    try {
      const rounds = await Promise.all(
        Array.from({ length: 8 }, () => Promise.all(clients.map((client) => read(client)))),
      );
      for (const [ra, rb, rc] of rounds) {
        assert.ok(ra && rb && rc);
        assert.equal(ra.grant.grant_id, a.grant.grant_id);
        assert.equal(rb.grant.grant_id, b.grant.grant_id);
        assert.equal(rc.grant.grant_id, c.grant.grant_id);
        // Pairwise: the same client sees the same subject and instance ids, another client others.
        assert.equal(ra.subject_id, rc.subject_id);
        assert.notEqual(ra.subject_id, rb.subject_id);
        assert.notEqual(ra.claim_instances[0]?.instance_id, rb.claim_instances[0]?.instance_id);
        assert.ok(rb.claims.length > 0 && rb.claims.every((claim) => claim.namespace === 'core'));
        assert.ok(ra.claims.some((claim) => claim.namespace === 'fragrance'));
        assert.deepEqual(
          ra.claim_instances.map((i) => i.id),
          ra.claims.map((claim) => claim.claim_id),
        );
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('shows a deletion on the very next read, even within the same second', async () => {
    const g = await mcpGrant(p);
    const client = await connect(p, g.token);
    try {
      const before = await read(client);
      const gone = before.claims.find((claim) => claim.namespace === 'fragrance');
      assert.ok(gone);
      const deleted = await api(p.url, `/v1/profile/claims/${encodeURIComponent(gone.claim_id)}`, {
        method: 'DELETE',
        token: p.subjectToken,
      });
      assert.equal(deleted.status, 200, deleted.text);
      const after = await read(client);
      assert.ok(!after.claims.some((claim) => claim.claim_id === gone.claim_id));
      assert.ok(!after.claim_instances.some((i) => i.id === gone.claim_id));
      assert.equal(after.claims.length, before.claims.length - 1);
    } finally {
      await client.close();
    }
  });

  it('shows nothing of a write outside the grant: the next answer is the same, freshness included', async () => {
    const g = await mcpGrant(p, { allowed_namespaces: ['core'] });
    const client = await connect(p, g.token);
    try {
      const before = await read(client);
      const profile = await p.deps.store.getProfileBySubject(p.subjectId);
      assert.ok(profile);
      const outside = (await p.deps.store.listClaims(profile.profile_id)).find(
        (x) => x.namespace === 'fragrance',
      );
      assert.ok(outside, 'the demo profile has fragrance claims');
      const deleted = await api(p.url, `/v1/profile/claims/${encodeURIComponent(outside.claim_id)}`, {
        method: 'DELETE',
        token: p.subjectToken,
      });
      assert.equal(deleted.status, 200, deleted.text);
      const after = await read(client);
      // Only the time of the read may differ (and freshness only if the hour turned meanwhile).
      const strip = (d: Data) => ({ ...d, generated_at: '', freshness: undefined });
      assert.deepEqual(strip(after), strip(before));
      const hours = new Set([...before.freshness, ...after.freshness].map((f) => f.last_success_at));
      assert.ok(hours.size <= 2);
    } finally {
      await client.close();
    }
  });

  it('refuses the next read after a revocation, with the previous answer still cached', async () => {
    const g = await mcpGrant(p);
    const client = await connect(p, g.token);
    try {
      await read(client);
      await read(client);
      const revoked = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: g.grant.grant_id },
      });
      assert.equal(revoked.status, 200, revoked.text);
      await assert.rejects(
        client.callTool({ name: 'ppx_get_effective_profile', arguments: { context: CONTEXT } }),
        /401|grant_revoked/,
      );
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
