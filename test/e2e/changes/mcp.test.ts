import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mintPackage } from '../../../src/operations/consent/package-tokens.ts';
import type { GrantDraft } from '../../../src/operations/grants/consent-grants.ts';
import { connect, mcpGrant, mcpUrl } from '../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { proposed } from '../../support/writeback.ts';
import { type Watch, watch } from './helpers.ts';

// The MCP tools that write, driven with the MCP SDK client: each announces its change event by
// the time the tool result arrives; a tool error announces nothing. The clock is the provider's
// (startTestProvider({clock})), so a grant expires without waiting.

// biome-ignore lint/suspicious/noExplicitAny: tool results are arbitrary JSON
type ToolResult = any;

describe('change events of MCP tool calls', () => {
  let p: TestProvider;
  let w: Watch;
  let now = Date.now();
  const clients: Client[] = [];
  before(async () => {
    p = await startTestProvider({ clock: () => new Date(now) });
    w = await watch(p);
  });
  after(async () => {
    w.close();
    for (const c of clients) await c.close();
    await p.close();
  });

  /** An MCP client over a fresh grant (its grant_created consumed). */
  async function client(draft: Partial<GrantDraft>) {
    const { grant, token } = await mcpGrant(p, {
      allowed_operations: ['read', 'query', 'propose_update', 'confirm_update'],
      expires_at: new Date(now + 30 * 86_400_000).toISOString(),
      ...draft,
    });
    await w.expect({ kind: 'grant_created', grants: [grant.grant_id] });
    const c = await connect(p, token);
    clients.push(c);
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
      c.callTool({ name, arguments: args });
    return { grant, id: grant.grant_id, call };
  }

  it('ppx_propose_updates and ppx_confirm_updates: proposal_created, then claims_written and proposal_decided', async () => {
    const g = await client({ writeback_policy: 'review_required' });
    const r = await g.call('ppx_propose_updates', {
      claims: [proposed('fragrance', 'freshness_preference', 0.9)],
    });
    assert.equal(r.isError, undefined, r.content[0]?.text);
    const proposal = r.structuredContent.data.proposals[0];
    await w.expect({
      kind: 'proposal_created',
      ids: { proposal_ids: [proposal.proposal_id], namespaces: ['fragrance'] },
      grants: [g.id],
    });
    const c = await g.call('ppx_confirm_updates', {
      decisions: [{ proposal_id: proposal.proposal_id, action: 'confirm' }],
    });
    assert.equal(c.isError, undefined, c.content[0]?.text);
    await w.expect(
      { kind: 'claims_written', ids: { namespaces: ['fragrance'] }, grantsInclude: [g.id] },
      { kind: 'proposal_decided', ids: { proposal_ids: [proposal.proposal_id] }, grants: [g.id] },
    );
    const again = await g.call('ppx_confirm_updates', {
      decisions: [{ proposal_id: proposal.proposal_id, action: 'reject' }],
    });
    assert.equal(again.structuredContent.error?.code, 'conflict');
    await w.quiet();
  });

  it('a refused proposal (403 on the wire) and an invalid one (a tool error) announce nothing', async () => {
    const g = await client({ client_id: 'travel-demo', writeback_policy: 'forbidden' });
    await assert.rejects(
      g.call('ppx_propose_updates', { claims: [proposed('fragrance', 'freshness_preference', 0.1)] }),
      /writeback_forbidden/,
    );
    // Under that grant even an empty list is refused by the grant first (WIRE-NOTES §2.7)…
    await assert.rejects(g.call('ppx_propose_updates', { claims: [] }), /writeback_forbidden/);
    // …and under one that may write, it is the input's problem: a tool error.
    const writer = await client({ client_id: 'travel-demo' });
    const invalid = await writer.call('ppx_propose_updates', { claims: [] });
    assert.equal(invalid.structuredContent.error?.code, 'invalid_request');
    await w.quiet();
  });

  it('the read tools announce nothing', async () => {
    const g = await client({});
    for (const name of [
      'ppx_get_profile_summary',
      'ppx_get_effective_profile',
      'ppx_list_consent_grants',
      'ppx_list_granted_access',
    ]) {
      const r = await g.call(name);
      assert.equal(r.isError, undefined, `${name}: ${r.content[0]?.text}`);
    }
    assert.equal(
      (await g.call('ppx_query_claims', { requested_keys: ['novelty_tolerance'] })).isError,
      undefined,
    );
    await w.quiet();
  });

  it('ppx_revoke_consent_grant: grant_revoked; the next call (401) announces nothing', async () => {
    const g = await client({});
    const r = await g.call('ppx_revoke_consent_grant');
    assert.equal(r.isError, undefined, r.content[0]?.text);
    await w.expect({ kind: 'grant_revoked', ids: { grant_ids: [g.id] }, grants: [g.id] });
    await assert.rejects(g.call('ppx_get_profile_summary'), /401|revoked/);
    await w.quiet();
  });

  it('child discovery finding a child past its expiry: grant_expired, announced once', async () => {
    const active = await p.grant({ expires_at: new Date(now + 30 * 86_400_000).toISOString() });
    const ending = await p.grant({ expires_at: new Date(now + 60_000).toISOString() });
    await w.expect({ kind: 'grant_created' }, { kind: 'grant_created' });
    // The active child first: authenticating the token stops at it, so only the listing finds
    // the other one ended.
    const minted = await mintPackage(p.deps, [active.grant.grant_id, ending.grant.grant_id], mcpUrl(p));
    assert.ok(minted.ok);
    await w.quiet();
    now += 120_000;
    const c = await connect(p, minted.value.access_token);
    clients.push(c);
    const listed = (await c.callTool({ name: 'ppx_list_granted_access', arguments: {} })) as ToolResult;
    const statuses = listed.structuredContent.data.grants.map((g: { status: string }) => g.status);
    assert.deepEqual(statuses, ['active', 'expired']);
    const id = ending.grant.grant_id;
    await w.expect({ kind: 'grant_expired', ids: { grant_ids: [id] }, grants: [id] });
    await c.callTool({ name: 'ppx_list_granted_access', arguments: {} });
    await w.quiet();
  });

  it('a grant found past its expiry: grant_expired, announced once', async () => {
    const g = await client({ expires_at: new Date(now + 60_000).toISOString() });
    assert.equal((await g.call('ppx_get_profile_summary')).isError, undefined);
    await w.quiet();
    now += 120_000;
    await assert.rejects(g.call('ppx_get_profile_summary'), /401|expired/);
    await w.expect({ kind: 'grant_expired', ids: { grant_ids: [g.id] }, grants: [g.id] });
    await assert.rejects(g.call('ppx_get_effective_profile'), /401|expired/);
    await w.quiet();
  });
});
