import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { GrantRecord } from '../../src/model/grant-record.ts';
import type { GrantDraft } from '../../src/operations/grants/consent-grants.ts';
import { issueGrantToken } from '../../src/operations/tokens/issue-tokens.ts';
import type { TestProvider } from './provider.ts';

// Helpers for driving /mcp with the official SDK clients. `connect` gives the 1.x client, which
// speaks 2025-11-25; with PPX_TEST_MCP=2026-07-28 (scripts/test-sets.ts runs the MCP tests so a
// second time) it gives the v2 client pinned to 2026-07-28, so every test that goes through
// `connect` runs against both protocol generations of the same server.

/** The protocol generation `connect` speaks in this run. */
export const MCP_GENERATION = process.env['PPX_TEST_MCP'] === '2026-07-28' ? '2026-07-28' : '2025-11-25';

export function mcpUrl(p: TestProvider): string {
  return `${p.deps.provider.baseUrl}/mcp`;
}

export function prmUrl(p: TestProvider): string {
  return `${p.deps.provider.baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

/** A grant (TestProvider defaults, overridden by `draft`) and a token for the MCP resource. */
export async function mcpGrant(
  p: TestProvider,
  draft: Partial<GrantDraft> = {},
): Promise<{ grant: GrantRecord; token: string }> {
  const { grant } = await p.grant(draft);
  const issued = await issueGrantToken(p.deps, grant, 600, mcpUrl(p));
  return { grant, token: issued.access_token };
}

/** A connected SDK client sending `Authorization: Bearer <token>` (plus any extra headers). */
export async function connect(
  p: TestProvider,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<Client> {
  const requestInit = {
    headers: { ...headers, ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
  };
  if (MCP_GENERATION === '2026-07-28') {
    const modern = new ModernClient(
      { name: 'ppx-mcp-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(new ModernTransport(new URL(`${p.url}/mcp`), { requestInit }));
    // The two clients share the calls these tests make (callTool, listTools, resources, close).
    return modern as unknown as Client;
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${p.url}/mcp`), { requestInit });
  const client = new Client({ name: 'ppx-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST to /mcp, for status and header assertions the SDK client hides. */
export async function rawPost(
  p: TestProvider,
  token: string | undefined,
  message: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${p.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  return { status: res.status, headers: res.headers, text, json: json as any };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};

export function toolCall(name: string, args: Record<string, unknown> = {}, id = 2) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** The `_meta` every 2026-07-28 request carries (the protocol version and the client's capabilities). */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/**
 * A raw 2026-07-28 POST: the envelope in `params._meta` and the standard headers
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` for a tool call or a resource read).
 */
export function modernPost(
  p: TestProvider,
  token: string | undefined,
  message: { jsonrpc: '2.0'; id?: number; method: string; params?: Record<string, unknown> },
  headers: Record<string, string> = {},
) {
  const params = message.params ?? {};
  const name =
    message.method === 'tools/call'
      ? params['name']
      : message.method === 'resources/read'
        ? params['uri']
        : undefined;
  return rawPost(
    p,
    token,
    { ...message, params: { ...params, _meta: { ...MODERN_ENVELOPE, ...(params['_meta'] as object) } } },
    {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': message.method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...headers,
    },
  );
}
