import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpGrant } from '../../support/mcp-client.ts';
import { dropSchemas, postgresUnreachable, TEST_DATABASE_URL } from '../../support/postgres.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import { proposed } from '../../support/writeback.ts';

// A grantee's change notices across instances (issue 25 item 2): the stream is on one instance,
// the change is made through another, and the notice comes through the change events
// (LISTEN/NOTIFY); a 2025-11-25 subscription made on one instance is told on a stream of another.

const unreachable = await postgresUnreachable();

describe('MCP change notices across two instances on one PostgreSQL database', skipWhen(unreachable), () => {
  const schema = `mcpn_${randomBytes(5).toString('hex')}`;
  let a: TestProvider;
  let b: TestProvider;
  before(async () => {
    const shared = {
      postgres: { url: TEST_DATABASE_URL, schema },
      env: { PPX_BASE_URL: 'http://ppx.mcp-notices.test' },
    };
    a = await startTestProvider(shared);
    b = await startTestProvider(shared);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await dropSchemas([schema]);
  });

  const auth = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const write = (p: TestProvider, key: string, value: unknown) =>
    api(p.url, '/v1/profile/propose-updates', {
      token: p.subjectToken,
      body: { claims: [proposed('fragrance', key, value)] },
    });

  it('2026-07-28: listening on one instance hears a change and a revocation made through the other', async () => {
    const { grant, token } = await mcpGrant(a);
    const c = new ModernClient(
      { name: 'n', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await c.connect(new ModernTransport(new URL(`${a.url}/mcp`), auth(token)));
    const updates: string[] = [];
    c.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    const uri = (await c.listResources()).resources[0]?.uri as string;
    const sub = await c.listen({ resourceSubscriptions: [uri] });
    assert.equal((await write(b, 'freshness_preference', 0.15)).status, 200);
    await waitFor(() => updates.length === 1);
    assert.deepEqual(updates, [uri]);
    const revoked = await api(b.url, '/v1/consent/revoke', {
      token: b.subjectToken,
      body: { grant_id: grant.grant_id },
    });
    assert.equal(revoked.status, 200);
    assert.equal(await sub.closed, 'graceful');
    await c.close();
  });

  it('2025-11-25: a subscription made through one instance is told on the stream of the other', async () => {
    const { token } = await mcpGrant(a);
    const onA = new V1Client({ name: 'n', version: '1' });
    await onA.connect(new V1Transport(new URL(`${a.url}/mcp`), auth(token)));
    const updates: string[] = [];
    onA.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    const uri = (await onA.listResources()).resources[0]?.uri as string;
    const onB = new V1Client({ name: 'n', version: '1' });
    await onB.connect(new V1Transport(new URL(`${b.url}/mcp`), auth(token)));
    await onB.subscribeResource({ uri });
    // A's stream reads what the grant follows again within a second (legacy-stream.ts).
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal((await write(b, 'intensity_preference', 0.35)).status, 200);
    await waitFor(() => updates.length >= 1);
    assert.deepEqual([...new Set(updates)], [uri]);
    await onA.close();
    await onB.close();
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(done(), 'the notice did not come');
}
