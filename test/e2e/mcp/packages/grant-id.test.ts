import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { childId } from '../../../../src/operations/child-ids.ts';
import { auditAfter, auditMark } from '../../../support/audit.ts';
import { connect, INITIALIZE, mcpGrant, rawPost } from '../../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { assertNoSubjectId, Caller, mcpPackage } from './helpers.ts';

// Read profile §3: with a package token every data-disclosing tool requires grant_id; a missing,
// malformed, repeated or unknown one is a tool error before any read, even for one child. A child
// is named by its child id (`[A-Za-z0-9._~-]+`, WIRE-NOTES §4); its PPX grant id is an alias.

const DATA_TOOLS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['ppx_get_profile_summary', {}],
  ['ppx_query_claims', { requested_namespaces: ['fragrance'] }],
  ['ppx_get_effective_profile', {}],
  ['ppx_list_consent_grants', {}],
  ['ppx_export_profile', {}],
  ['ppx_propose_updates', { claims: [] }],
  ['ppx_confirm_updates', { decisions: [] }],
  ['ppx_revoke_consent_grant', {}],
];

describe('MCP package tokens: grant_id', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  async function refusedBeforeRead(c: Caller, name: string, args: Record<string, unknown>) {
    const mark = await auditMark(p);
    const r = await c.call(name, args);
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r)}`);
    assert.equal(r.structuredContent.error.code, 'invalid_request');
    assert.deepEqual(await auditAfter(p, mark), [], `${name}: nothing was read`);
    return r;
  }

  it('a package token is accepted on /mcp', async () => {
    const { token, grants } = await mcpPackage(p, [{}, { allowed_namespaces: ['core'] }]);
    const init = await rawPost(p, token, INITIALIZE);
    assert.equal(init.status, 200, init.text);
    const c = new Caller(await connect(p, token));
    await c.init();
    const r = await c.call('ppx_get_profile_summary', { grant_id: grants[0]!.grant_id });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.equal(r.structuredContent.data.grant.grant_id, grants[0]!.grant_id);
  });

  it('a child id names the child; its PPX grant id is accepted as the same name', async () => {
    const { token, grants } = await mcpPackage(p, [{}, { allowed_namespaces: ['core'] }]);
    const [a, b] = grants.map((g) => g.grant_id) as [string, string];
    const c = new Caller(await connect(p, token));
    await c.init();
    const listed = (await c.call('ppx_list_granted_access')).structuredContent.data.grants.map(
      (g: { grant_id: string }) => g.grant_id,
    );
    assert.deepEqual(listed, [childId(a), childId(b)]);
    for (const named of [childId(b), b]) {
      const r = await c.call('ppx_get_effective_profile', { grant_id: named });
      assert.equal(r.isError, undefined, `${named}: ${JSON.stringify(r)}`);
      assert.equal(r.structuredContent.data.grant.grant_id, b, `${named} names the second child`);
    }
    const mixed = await c.call('ppx_get_profile_summary', { grant_id: [a, childId(b)] });
    assert.equal(mixed.isError, false, JSON.stringify(mixed));
    assert.deepEqual(
      mixed.structuredContent.results.map((e: { grant_id: string }) => e.grant_id),
      [childId(a), childId(b)],
    );
  });

  it('resources cannot name a child: none are listed under a package token, and a read is refused', async () => {
    const { token, grants, clientId } = await mcpPackage(p, [{}, { allowed_namespaces: ['core'] }]);
    const client = await connect(p, token);
    try {
      assert.deepEqual((await client.listResources()).resources, []);
      const own = p.deps.pairwise.profile(grants[0]!.profile_id, clientId);
      await assert.rejects(
        client.readResource({ uri: `ppx://profile/${encodeURIComponent(own)}/summary` }),
        /several grants/,
      );
    } finally {
      await client.close();
    }
  });

  it('every data-disclosing tool requires grant_id, even with a one-child package', async () => {
    const { token } = await mcpPackage(p, [{}]);
    const c = new Caller(await connect(p, token));
    await c.init();
    for (const [name, args] of DATA_TOOLS) await refusedBeforeRead(c, name, args);
    assertNoSubjectId(p, c.seen);
  });

  it('a malformed grant_id is refused before any read', async () => {
    const { token, grants } = await mcpPackage(p, [{}]);
    const id = grants[0]!.grant_id;
    const child = childId(id);
    const c = new Caller(await connect(p, token));
    await c.init();
    // Outside the grammar: empty, a space, a slash, a colon other than the `ppx:grant:` prefix's.
    for (const bad of [
      '',
      'grant 1',
      `${id} `,
      ` ${child}`,
      `grant:${child}`,
      `PPX:GRANT:${child}`,
      `ppx:grant:${id}`,
      `${child}/x`,
      `ppx:grant:a/b`,
      [id, 'x y'],
      [child, `ppx:${child}`],
    ]) {
      const r = await refusedBeforeRead(c, 'ppx_get_effective_profile', { grant_id: bad });
      assert.equal(
        r.structuredContent.error.message,
        'grant_id is malformed: a grant id is letters, digits and . _ ~ - (see ppx_list_granted_access)',
        JSON.stringify(bad),
      );
    }
    await refusedBeforeRead(c, 'ppx_propose_updates', { claims: [], grant_id: 'ppx:grant:' });
  });

  it('a repeated grant_id is refused before any read', async () => {
    const { token, grants } = await mcpPackage(p, [{}, { allowed_namespaces: ['core'] }]);
    const [a, b] = grants.map((g) => g.grant_id);
    const c = new Caller(await connect(p, token));
    await c.init();
    await refusedBeforeRead(c, 'ppx_get_effective_profile', { grant_id: [a, a] });
    await refusedBeforeRead(c, 'ppx_query_claims', { grant_id: [a, b, a] });
    // The child id and the PPX grant id are one name: both in one list is a repeat.
    await refusedBeforeRead(c, 'ppx_get_effective_profile', { grant_id: [a, childId(a!)] });
    await refusedBeforeRead(c, 'ppx_query_claims', { grant_id: [childId(b!), childId(b!)] });
  });

  it('an unknown grant_id (even an active grant of the same app outside the package) is refused before any read', async () => {
    const { token, clientId } = await mcpPackage(p, [{}]);
    const outside = await p.grant({ client_id: clientId });
    const c = new Caller(await connect(p, token));
    await c.init();
    for (const bad of [
      'ppx:grant:unknown',
      'unknown',
      outside.grant.grant_id,
      childId(outside.grant.grant_id),
    ]) {
      await refusedBeforeRead(c, 'ppx_get_profile_summary', { grant_id: bad });
      await refusedBeforeRead(c, 'ppx_get_effective_profile', { grant_id: [bad] });
      await refusedBeforeRead(c, 'ppx_revoke_consent_grant', { grant_id: bad });
    }
    assert.equal((await p.deps.store.getGrant(outside.grant.grant_id))?.status, 'active');
  });

  it('a child whose grant lacks the operation is refused before its arguments are read (WIRE-NOTES §2.7)', async () => {
    const { token, grants } = await mcpPackage(p, [{}, { allowed_operations: ['read', 'propose_update'] }]);
    const c = new Caller(await connect(p, token));
    await c.init();
    const reader = grants[0]!.grant_id;
    for (const args of [{ claims: [] }, { claims: 'x' }, { not_a_member: 1 }]) {
      const r = await c.call('ppx_propose_updates', { grant_id: reader, ...args });
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.equal(r.structuredContent.error.code, 'insufficient_scope', JSON.stringify(args));
    }
    // The child that may propose reads its arguments: an empty list is its input's problem.
    const writer = await c.call('ppx_propose_updates', { grant_id: grants[1]!.grant_id, claims: [] });
    assert.equal(writer.structuredContent.error.code, 'invalid_request');
  });

  it('write tools take exactly one grant_id, not a list', async () => {
    const { token, grants } = await mcpPackage(p, [{ allowed_operations: ['read', 'propose_update'] }]);
    const c = new Caller(await connect(p, token));
    await c.init();
    await refusedBeforeRead(c, 'ppx_revoke_consent_grant', { grant_id: [grants[0]!.grant_id] });
    assert.equal((await p.deps.store.getGrant(grants[0]!.grant_id))?.status, 'active');
  });

  it('with a single-grant token grant_id stays optional and must match', async () => {
    const { token, grant } = await mcpGrant(p);
    const c = new Caller(await connect(p, token));
    await c.init();
    assert.equal((await c.call('ppx_get_profile_summary', {})).isError, undefined);
    assert.equal((await c.call('ppx_get_profile_summary', { grant_id: grant.grant_id })).isError, undefined);
    const own = childId(grant.grant_id);
    assert.equal((await c.call('ppx_get_profile_summary', { grant_id: own })).isError, undefined);
    const other = await p.grant();
    for (const bad of [other.grant.grant_id, childId(other.grant.grant_id)]) {
      const r = await refusedBeforeRead(c, 'ppx_get_profile_summary', { grant_id: bad });
      assert.equal(
        r.structuredContent.error.message,
        `grant_id must be omitted or name this token's grant, "${own}"`,
      );
    }
  });
});
