import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { GrantRecord } from '../../../src/model/grant-record.ts';
import { CATALOG, toolNameOf } from '../../../src/operations/catalog/index.ts';
import { connect, mcpGrant } from '../../support/mcp-client.ts';
import { type OfficialSchemaName, officialErrors, SKIP_NO_SHARED } from '../../support/official-schemas.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Every tool with a single-grant token: published schemas are JSON Schema 2020-12 under a byte
// budget, results validate against them, and PPX objects against the official schemas.

/**
 * An agent pays for tools/list in every session (issue 10 item 9): 16 KiB for the nine tools,
 * measured at 15.9 KB; it was 42.8 KB with the full PPX schemas in every output. A new tool or a
 * larger schema is a decision (docs/mcp.md, "What tools/list costs").
 */
const TOOLS_LIST_BUDGET = 16 * 1024;
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

const EXPECTED: Record<
  string,
  OfficialSchemaName | ((data: unknown) => Array<[OfficialSchemaName, unknown]>)
> = {
  ppx_query_claims: 'effective-profile',
  ppx_get_effective_profile: 'effective-profile',
  // The PPX profile without the MCP presentation members (docs/mcp.md).
  ppx_export_profile: (d) => {
    const { claim_instances: _i, freshness: _f, ...profile } = d as Record<string, unknown>;
    return [['profile', profile]];
  },
  ppx_list_consent_grants: (d) => (d as { grants: unknown[] }).grants.map((g) => ['consent-grant', g]),
  ppx_revoke_consent_grant: (d) => [['consent-grant', (d as { grant: unknown }).grant]],
};

function ajv2020(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  return ajv;
}

describe('MCP tools with a single-grant token', () => {
  let p: TestProvider;
  let client: Client;
  let grantId: string;
  let grantRecord: GrantRecord;
  // biome-ignore lint/suspicious/noExplicitAny: tools/list JSON
  let tools: any[];
  const ajv = ajv2020();

  before(async () => {
    p = await startTestProvider();
    const { grant, token } = await mcpGrant(p, {
      allowed_operations: ['read', 'query', 'propose_update', 'confirm_update', 'export'],
      writeback_policy: 'review_required',
    });
    grantId = grant.grant_id;
    grantRecord = grant;
    client = await connect(p, token);
    tools = (await client.listTools()).tools;
  });
  after(async () => {
    await client.close();
    await p.close();
  });

  async function call(name: string, args: Record<string, unknown> = {}) {
    const result = await client.callTool({ name, arguments: args });
    const tool = tools.find((t) => t.name === name);
    const validate = ajv.compile(tool.outputSchema);
    assert.ok(validate(result.structuredContent), JSON.stringify(validate.errors));
    return result as {
      isError?: boolean;
      structuredContent: { data?: unknown; error?: { code: string } };
    } & {
      content: Array<{ type: string; text: string }>;
    };
  }

  it('lists the nine tools with titles, annotations and 2020-12 schemas, under the byte budget', async () => {
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'ppx_confirm_updates',
      'ppx_export_profile',
      'ppx_get_effective_profile',
      'ppx_get_profile_summary',
      'ppx_list_consent_grants',
      'ppx_list_granted_access',
      'ppx_propose_updates',
      'ppx_query_claims',
      'ppx_revoke_consent_grant',
    ]);
    // Exactly the catalog's operations with an MCP binding, in its order, each `ppx_<name>`.
    const bound = CATALOG.filter((o) => o.mcp).map((o) => toolNameOf(o.name));
    assert.deepEqual(
      tools.map((t) => t.name),
      bound,
    );
    for (const t of tools) {
      const op = CATALOG.find((o) => toolNameOf(o.name) === t.name)!;
      assert.equal(t.title, op.title);
      assert.equal(t.description, op.description);
    }
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    assert.ok(bytes <= TOOLS_LIST_BUDGET, `tools/list is ${bytes} bytes, budget ${TOOLS_LIST_BUDGET}`);
    for (const t of tools) {
      assert.ok(t.title && t.description.length > 80, t.name);
      assert.equal(t.annotations.openWorldHint, false, t.name);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint']) {
        assert.equal(typeof t.annotations[hint], 'boolean', `${t.name} ${hint}`);
      }
      // 2020-12 both: the output names it, the input is 2020-12 by MCP 2025-11-25's default.
      assert.equal(t.outputSchema.$schema, DRAFT_2020, t.name);
      assert.equal(t.inputSchema.$schema, undefined, t.name);
      for (const schema of [t.inputSchema, t.outputSchema]) {
        assert.equal(schema.type, 'object', t.name);
        assert.ok(
          ajv.validateSchema({ $schema: DRAFT_2020, ...schema }),
          `${t.name}: ${JSON.stringify(ajv.errors)}`,
        );
        ajv.compile(schema);
      }
      if (t.name === 'ppx_list_granted_access') {
        assert.equal(t.inputSchema.properties.grant_id, undefined, 'discovery takes no grant_id');
        continue;
      }
      assert.ok(t.inputSchema.properties.grant_id, `${t.name} declares grant_id`);
      assert.ok(!(t.inputSchema.required ?? []).includes('grant_id'), `${t.name}: grant_id optional`);
    }
    const readOnly = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
    assert.equal(readOnly.length, 6);
    // Every tool that writes can replace or end something: none is merely additive.
    const destructive = tools
      .filter((t) => t.annotations.destructiveHint)
      .map((t) => t.name)
      .sort();
    assert.deepEqual(destructive, ['ppx_confirm_updates', 'ppx_propose_updates', 'ppx_revoke_consent_grant']);
  });

  it('every read tool answers with data valid against its output and the official schema', {
    skip: SKIP_NO_SHARED,
  }, async () => {
    for (const name of [
      'ppx_get_profile_summary',
      'ppx_query_claims',
      'ppx_get_effective_profile',
      'ppx_list_consent_grants',
      'ppx_export_profile',
    ]) {
      const r = await call(name, name === 'ppx_query_claims' ? { requested_namespaces: ['fragrance'] } : {});
      assert.equal(r.isError, undefined, `${name}: ${r.content[0]?.text}`);
      assert.deepEqual(JSON.parse(r.content[0]!.text), r.structuredContent.data, 'the text copy is the data');
      const expected = EXPECTED[name];
      const pairs: Array<[OfficialSchemaName, unknown]> =
        typeof expected === 'function'
          ? expected(r.structuredContent.data)
          : expected
            ? [[expected, r.structuredContent.data]]
            : [];
      for (const [schema, data] of pairs) assert.deepEqual(officialErrors(schema, data), [], name);
      assert.doesNotMatch(JSON.stringify(r), new RegExp(p.subjectId), 'no internal subject id');
    }
  });

  it('grant_id: the token’s own id is accepted, another id or a list is a tool error before any read', async () => {
    const own = await call('ppx_get_profile_summary', { grant_id: grantId });
    assert.equal(own.isError, undefined, own.content[0]?.text);
    assert.equal((await call('ppx_get_effective_profile', { grant_id: [grantId] })).isError, false);
    for (const bad of ['ppx:grant:other', ['a', 'b'], [grantId, grantId], '']) {
      const r = await call('ppx_get_effective_profile', { grant_id: bad });
      assert.equal(r.isError, true);
      assert.equal(r.structuredContent.error?.code, 'invalid_request');
    }
  });

  it('proposes (queued for review) and confirms an update under the grant', async () => {
    const proposed = await call('ppx_propose_updates', {
      claims: [
        {
          type: 'preference',
          namespace: 'fragrance',
          key: 'freshness_preference',
          value: 0.9,
          confidence: 0.6,
          source: { kind: 'observed', origin: 'in_app_session' },
        },
      ],
    });
    assert.equal(proposed.isError, undefined, proposed.content[0]?.text);
    const data = proposed.structuredContent.data as {
      writeback: string;
      proposals: Array<{ proposal_id: string; claim_id: string }>;
      claim_instances: Array<{ id: string; instance_id: string }>;
    };
    assert.equal(data.writeback, 'proposal_created');
    // Read profile §3: every claim id a result names has its instance_id beside it.
    const instance = p.deps.pairwise.profile(grantRecord.profile_id, grantRecord.grantee_id);
    assert.deepEqual(data.claim_instances, [{ id: data.proposals[0]!.claim_id, instance_id: instance }]);
    const confirmed = await call('ppx_confirm_updates', {
      decisions: [{ proposal_id: data.proposals[0]!.proposal_id, action: 'confirm' }],
    });
    assert.equal(confirmed.isError, undefined, confirmed.content[0]?.text);
    const written = confirmed.structuredContent.data as {
      claims: Array<{ claim_id: string; namespace: string }>;
      claim_instances: Array<{ id: string; instance_id: string }>;
      freshness: Array<{ stream: string; instance_id: string }>;
    };
    assert.ok(written.claims.length > 0);
    assert.deepEqual(
      written.claim_instances.map((i) => i.id).slice(0, written.claims.length),
      written.claims.map((c) => c.claim_id),
    );
    assert.ok(written.claim_instances.every((i) => i.instance_id === instance));
    assert.deepEqual(
      written.freshness.map((f) => f.stream),
      [...new Set(written.claims.map((c) => c.namespace))].sort(),
    );
    const again = await call('ppx_confirm_updates', {
      decisions: [{ proposal_id: data.proposals[0]!.proposal_id, action: 'confirm' }],
    });
    assert.equal(again.isError, true);
    assert.equal(again.structuredContent.error?.code, 'conflict');
    const invalid = await call('ppx_propose_updates', { claims: [] });
    assert.equal(invalid.structuredContent.error?.code, 'invalid_request');
  });

  it('revokes the grant it acts under, last', { skip: SKIP_NO_SHARED }, async () => {
    const r = await call('ppx_revoke_consent_grant', {});
    assert.equal(r.isError, undefined, r.content[0]?.text);
    const grant = (r.structuredContent.data as { grant: { status: string; grant_id: string } }).grant;
    assert.equal(grant.grant_id, grantId);
    assert.equal(grant.status, 'revoked');
    assert.deepEqual(officialErrors('consent-grant', grant), []);
    await assert.rejects(client.callTool({ name: 'ppx_get_profile_summary', arguments: {} }), /401|revoked/);
  });
});
