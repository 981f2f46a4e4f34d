import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpGrant, modernPost, rawPost } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { proposed } from '../../support/writeback.ts';

const proposed_ = (key: string, value: unknown) => proposed('fragrance', key, value);

// Live subscriptions for grantees over MCP 2026-07-28 (issue 25 item 2, docs/subscriptions.md),
// with the v2 SDK client's own `listen()`: a grantee is told when what its grant reads changes,
// never of a change outside its grant, and its stream ends when its grant does.

const GRANT = {
  allowed_namespaces: ['core', 'fragrance'],
  allowed_claim_keys: ['fragrance.freshness_preference', 'fragrance.intensity_preference'],
  allowed_domains: ['fragrance'],
  allowed_operations: ['read', 'query'] as const,
};

/** Long enough for a notice to have come: the watch reads at most one tick (250 ms) after a change and sends at the next. */
const SETTLE_MS = 1_200;
const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

describe('MCP 2026-07-28 subscriptions/listen for grantees', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  async function client(token: string) {
    const c = new ModernClient(
      { name: 'listen-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await c.connect(
      new ModernTransport(new URL(`${p.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const updates: string[] = [];
    c.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    return { c, updates };
  }

  async function summaryUri(c: ModernClient): Promise<string> {
    const { resources } = await c.listResources();
    const uri = resources.find((r) => r.name === 'profile-summary')?.uri;
    assert.ok(uri);
    return uri;
  }

  const write = async (key: string, value: unknown) => {
    const r = await api(p.url, '/v1/profile/propose-updates', {
      token: p.subjectToken,
      body: { claims: [proposed('fragrance', key, value)] },
    });
    assert.equal(r.status, 200, r.text);
  };

  it('honors only the resources the grant reads, and tells of a change inside the grant', async () => {
    const { token } = await mcpGrant(p, { ...GRANT, allowed_operations: [...GRANT.allowed_operations] });
    const { c, updates } = await client(token);
    const summary = await summaryUri(c);
    const effective = summary.replace(
      /summary$/,
      `effective?context=${encodeURIComponent('{"occasion":"work"}')}`,
    );
    const other = 'ppx://profile/someone-else/summary';
    const sub = await c.listen({ resourceSubscriptions: [summary, effective, other, 'not a uri'] });
    assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: [summary, effective] });

    await write('freshness_preference', 0.9);
    await waitFor(() => updates.length >= 2);
    assert.deepEqual([...updates].sort(), [effective, summary].sort());
    await sub.close();
    assert.equal(await sub.closed, 'local');
    await c.close();
  });

  it('says nothing of a change outside the grant: only the later change inside it is told', async () => {
    const { token } = await mcpGrant(p, { ...GRANT, allowed_operations: [...GRANT.allowed_operations] });
    const { c, updates } = await client(token);
    const summary = await summaryUri(c);
    const sub = await c.listen({ resourceSubscriptions: [summary] });
    // note_aversions is in a granted namespace but not a granted key: hidden from this grant.
    await write('note_aversions', ['vanilla']);
    await settle();
    assert.deepEqual(updates, []);
    await write('intensity_preference', 0.3);
    await waitFor(() => updates.length >= 1);
    await settle();
    assert.deepEqual(updates, [summary]);
    await sub.close();
    await c.close();
  });

  it('ends the stream when the person revokes the grant', async () => {
    const { grant, token } = await mcpGrant(p, {
      ...GRANT,
      allowed_operations: [...GRANT.allowed_operations],
    });
    const { c } = await client(token);
    const sub = await c.listen({ resourceSubscriptions: [await summaryUri(c)] });
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(await sub.closed, 'graceful');
    await c.close();
  });

  it('tells the grantee when the person decides a proposal it made, and only its own', async () => {
    const draft = {
      ...GRANT,
      allowed_operations: ['read', 'query', 'propose_update'] as ('read' | 'query' | 'propose_update')[],
      writeback_policy: 'review_required' as const,
    };
    const { token } = await mcpGrant(p, draft);
    const { token: otherToken } = await mcpGrant(p, draft);
    const { c, updates } = await client(token);
    const proposed = (await c.callTool({
      name: 'ppx_propose_updates',
      arguments: { claims: [proposed_('freshness_preference', 0.1)] },
    })) as { structuredContent: { data: { proposals: { proposal_id: string }[] } } };
    const id = proposed.structuredContent.data.proposals[0]!.proposal_id;
    const uri = `ppx://proposal/${encodeURIComponent(id)}`;
    const pending = await c.readResource({ uri });
    assert.equal(JSON.parse((pending.contents[0] as { text: string }).text).status, 'pending');

    const other = await client(otherToken);
    await assert.rejects(other.c.readResource({ uri }), /no resource at/);
    const otherSub = await other.c.listen({ resourceSubscriptions: [uri] });
    assert.deepEqual(otherSub.honoredFilter, {}, "another grant's proposal is not there");

    const sub = await c.listen({ resourceSubscriptions: [uri] });
    assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: [uri] });
    const decided = await api(p.url, '/v1/profile/confirm-updates', {
      token: p.subjectToken,
      body: { decisions: [{ proposal_id: id, action: 'reject' }] },
    });
    assert.equal(decided.status, 200, decided.text);
    await waitFor(() => updates.includes(uri));
    const read = await c.readResource({ uri });
    const view = JSON.parse((read.contents[0] as { text: string }).text);
    assert.equal(view.status, 'rejected');
    assert.ok(view.decided_at);
    await sub.close();
    await c.close();
    await other.c.close();
  });

  it('acknowledges an empty filter and ends at once', async () => {
    const { token } = await mcpGrant(p);
    const { c } = await client(token);
    const sub = await c.listen({ resourceSubscriptions: ['ppx://profile/nobody/summary'] });
    assert.deepEqual(sub.honoredFilter, {});
    assert.equal(await sub.closed, 'graceful');
    await c.close();
  });

  it('refuses malformed params in-band, and a grant past its stream limit', async () => {
    const { token } = await mcpGrant(p);
    const bad = await modernPost(p, token, {
      jsonrpc: '2.0',
      id: 7,
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: 'all' } },
    });
    assert.equal(bad.status, 200, bad.text);
    assert.equal(bad.json.error.code, -32602);
    assert.equal(bad.json.id, 7);

    const { c } = await client(token);
    const uri = await summaryUri(c);
    const open = [];
    for (let i = 0; i < 8; i++) open.push(await c.listen({ resourceSubscriptions: [uri] }));
    await assert.rejects(c.listen({ resourceSubscriptions: [uri] }), /Subscription limit reached/);
    for (const s of open) await s.close();
    await c.close();
  });
});

describe('MCP 2025-11-25 resources/subscribe for grantees', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  /** The 1.x client, which opens the server stream (GET) itself after connecting. */
  async function v1(token: string) {
    const c = new V1Client({ name: 'subscribe-test', version: '1' });
    await c.connect(
      new V1Transport(new URL(`${p.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const updates: string[] = [];
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    return { c, updates };
  }

  const write = async (key: string, value: unknown) => {
    const r = await api(p.url, '/v1/profile/propose-updates', {
      token: p.subjectToken,
      body: { claims: [proposed('fragrance', key, value)] },
    });
    assert.equal(r.status, 200, r.text);
  };

  it('declares subscribe, and tells a subscribed resource of a change inside the grant only', async () => {
    const { token } = await mcpGrant(p, { ...GRANT, allowed_operations: [...GRANT.allowed_operations] });
    const { c, updates } = await v1(token);
    assert.equal(c.getServerCapabilities()?.resources?.subscribe, true);
    const { resources } = await c.listResources();
    const summary = resources.find((r) => r.name === 'profile-summary')?.uri as string;
    await c.subscribeResource({ uri: summary });
    await write('note_aversions', ['oud']); // hidden from this grant
    await settle();
    assert.deepEqual(updates, []);
    await write('freshness_preference', 0.4);
    await waitFor(() => updates.length >= 1);
    assert.deepEqual(updates, [summary]);

    await c.unsubscribeResource({ uri: summary });
    await write('freshness_preference', 0.5);
    await settle();
    assert.deepEqual(updates, [summary], 'nothing after unsubscribing');
    await c.close();
  });

  it('a resource the grant cannot read is not there; more than 32 is refused in words', async () => {
    const { token } = await mcpGrant(p);
    const { c } = await v1(token);
    await assert.rejects(
      c.subscribeResource({ uri: 'ppx://profile/someone-else/summary' }),
      /no resource at/,
    );
    const { resources } = await c.listResources();
    const summary = resources[0]?.uri as string;
    for (let i = 0; i < 32; i++) {
      await c.subscribeResource({
        uri: summary.replace(/summary$/, `effective?context=${encodeURIComponent(JSON.stringify({ n: i }))}`),
      });
    }
    await c.subscribeResource({ uri: summary.replace(/summary$/, 'effective?context=%7B%22n%22%3A0%7D') });
    await assert.rejects(c.subscribeResource({ uri: summary }), /already follows 32 resources/);
    await c.close();
  });

  it('a subscription made on one request is told on a stream opened before it, and ends with the grant (its rows too)', async () => {
    const { grant, token } = await mcpGrant(p, {
      ...GRANT,
      allowed_operations: [...GRANT.allowed_operations],
    });
    const { c, updates } = await v1(token);
    const summary = (await c.listResources()).resources[0]?.uri as string;
    // Another client of the same grant subscribes: subscriptions belong to the grant.
    const sub = await rawPost(p, token, {
      jsonrpc: '2.0',
      id: 3,
      method: 'resources/subscribe',
      params: { uri: summary },
    });
    assert.equal(sub.status, 200, sub.text);
    assert.deepEqual(sub.json.result, {});
    await write('intensity_preference', 0.8);
    await waitFor(() => updates.length >= 1);
    const stream = await fetch(`${p.url}/mcp`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    assert.equal(stream.status, 200);
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(revoked.status, 200);
    // The stream ends on its own once the grant is revoked, and the grant's subscriptions go with it.
    await stream.text();
    assert.deepEqual(await p.deps.store.listResourceSubscriptions(grant.grant_id), []);
    await c.close().catch(() => undefined);
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(done(), 'the notice did not come');
}
