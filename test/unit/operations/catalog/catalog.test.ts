import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { CATALOG, operationIdOf, toolNameOf } from '../../../../src/operations/catalog/index.ts';
import { SCOPE_OPERATIONS } from '../../../../src/operations/oauth/metadata.ts';

// The operation catalog's own rules, checked without a server (the end-to-end side is
// test/e2e/catalog/catalog.test.ts): names, bindings, and what the A2A surface will derive its
// skills and agent card from.

describe('the operation catalog', () => {
  it('names every operation once, in snake_case, with one operationId and one HTTP route each', () => {
    const names = CATALOG.map((o) => o.name);
    assert.equal(new Set(names).size, names.length);
    for (const n of names) assert.match(n, /^[a-z]+(_[a-z]+)*$/, n);
    const ids = CATALOG.map((o) => operationIdOf(o.name));
    assert.equal(new Set(ids).size, ids.length);
    const routes = CATALOG.flatMap((o) => (o.http ? [`${o.http.method} ${o.http.path}`] : []));
    assert.equal(new Set(routes).size, routes.length);
  });

  it('gives every MCP tool a description for a model, an object input, and a way to take grant_id', () => {
    const tools = CATALOG.filter((o) => o.mcp);
    assert.deepEqual(
      tools.map((o) => toolNameOf(o.name)),
      [
        'ppx_list_granted_access',
        'ppx_get_profile_summary',
        'ppx_query_claims',
        'ppx_get_effective_profile',
        'ppx_propose_updates',
        'ppx_confirm_updates',
        'ppx_list_consent_grants',
        'ppx_revoke_consent_grant',
        'ppx_export_profile',
      ],
    );
    for (const o of tools) {
      assert.ok((o.description ?? '').length > 80, o.name);
      assert.ok(o.input instanceof z.ZodObject, o.name);
      assert.notEqual(o.caller, 'public', o.name);
      if (o.caller === 'caller') assert.ok(o.mcp?.grantIds, `${o.name} says how it takes grant_id`);
      if (o.mcp?.grantIdIsTheCallsGrant) assert.ok('grant_id' in (o.input as z.ZodObject).shape, o.name);
      // What the published output declares are members of the output.
      const shape = (o.output as z.ZodObject).shape;
      for (const member of o.mcp?.shows ?? []) assert.ok(member in shape, `${o.name} shows ${member}`);
      if (o.follows?.at !== undefined)
        assert.ok(o.follows.at in shape, `${o.name} follows at ${o.follows.at}`);
    }
  });

  it('names the A2A skills of WIRE-NOTES §6, each one operation with what an agent card needs', () => {
    const skills = CATALOG.flatMap((o) => (o.a2a ? [[o.a2a.skill, o] as const] : []));
    assert.deepEqual(skills.map(([s]) => s).sort(), [
      'compatibility_view',
      'get_effective_profile',
      'propose_update',
      'recommendation_basis',
      'scoped_query',
    ]);
    for (const [skill, o] of skills) {
      assert.ok(o.title.length > 0 && (o.description ?? '').length > 20, skill);
      assert.ok(o.a2a!.tags.includes('ppx') && o.a2a!.examples.length > 0, skill);
      // Agent-card security: every skill needs a grant operation that an OAuth scope grants.
      assert.ok(o.grant, `${skill} declares what the grant must allow`);
      assert.ok(Object.values(SCOPE_OPERATIONS).includes(o.grant.operation), skill);
      assert.ok(o.input instanceof z.ZodObject, `${skill} takes named params`);
    }
  });

  it('declares the audit of every operation under a grant that reads or writes the profile', () => {
    for (const o of CATALOG) {
      if (o.grant) assert.ok(o.audit.length > 0, `${o.name} reads under a grant, so it audits`);
      if (o.caller === 'public') assert.equal(o.grant, undefined, o.name);
    }
  });
});
