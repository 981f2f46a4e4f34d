import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { qualifiedKey } from '../../../src/model/claim.ts';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { connect, mcpUrl } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { pick, prng } from '../../support/random.ts';

// STYLE §10: the same grant and request give the same claims on every surface. For random grants
// (namespace and key subsets) and contexts, ppx_get_effective_profile over MCP returns exactly
// what POST /v1/profile/effective returns (modulo generated_at).

const CONTEXTS = [
  {},
  { occasion: 'date_night' },
  { occasion: 'office' },
  { occasion: 'office', season: 'summer' },
  { climate: 'hot_humid', occasion: 'date_night' },
];

describe('MCP ↔ HTTP parity of the effective profile', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('equals the HTTP answer for 20 random grants and contexts (seed 5)', async () => {
    const rand = prng(5);
    const profile = await p.deps.store.getProfileBySubject(p.subjectId);
    assert.ok(profile);
    const claims = await p.deps.store.listClaims(profile.profile_id);
    const namespaces = [...new Set(claims.map((c) => c.namespace))];
    let nonEmpty = 0;
    for (let i = 0; i < 20; i++) {
      const ns = namespaces.filter(() => rand() < 0.6);
      const granted = ns.length > 0 ? ns : [pick(rand, namespaces)];
      const inScope = claims.filter((c) => granted.includes(c.namespace)).map(qualifiedKey);
      const keys = rand() < 0.5 ? inScope.filter(() => rand() < 0.5) : undefined;
      const draft = {
        allowed_namespaces: granted,
        ...(keys && keys.length > 0 ? { allowed_claim_keys: keys } : {}),
      };
      const { grant, token: httpToken } = await p.grant(draft);
      const mcpToken = (await issueGrantToken(p.deps, grant, 600, mcpUrl(p))).access_token;
      const context = pick(rand, CONTEXTS);
      const body = rand() < 0.3 ? { context, requested_namespaces: [pick(rand, granted)] } : { context };

      const http = await api(p.url, '/v1/profile/effective', { token: httpToken, body });
      assert.equal(http.status, 200, http.text);
      const client = await connect(p, mcpToken);
      const r = await client.callTool({ name: 'ppx_get_effective_profile', arguments: body });
      await client.close();
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      // `data` is the PPX object plus the MCP presentation members (docs/mcp.md): drop them here.
      const { claim_instances, freshness, ...data } = (
        r.structuredContent as { data: Record<string, unknown> }
      ).data;
      assert.equal((claim_instances as unknown[]).length, (data['claims'] as unknown[]).length);
      assert.ok(Array.isArray(freshness));
      const label = `case ${i}: ${JSON.stringify({ draft, body })}`;
      assert.deepEqual(data['claims'], http.json.claims, label);
      assert.deepEqual(data['applied_modifiers'], http.json.applied_modifiers, label);
      assert.deepEqual({ ...data, generated_at: 0 }, { ...http.json, generated_at: 0 }, label);
      if (http.json.claims.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= 10, `only ${nonEmpty} cases returned claims: the test would prove little`);
  });
});
