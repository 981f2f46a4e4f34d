import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type CallToolResult, Server } from '@modelcontextprotocol/server';
import { LegacyLeg } from '../src/surfaces/mcp/legacy-leg.ts';

// Child-process entry for `npm run bench:mcp`: a bare MCP server on the official SDK (v2) — the
// low-level `Server`, `WebStandardStreamableHTTPServerTransport` stateless with JSON responses on
// @hono/node-server, servers reused through the same pool as the provider's 2025 leg (a new server per
// request is what the SDK's stateless example does, and costs more) — answering `tools/call` with
// a precomputed result: the provider's own `ppx_get_effective_profile` answer, read from the file
// named by argv[2]. No auth, no store, no policy, no resolution, no audit, no router.
// Prints one JSON line {"url"} on stdout.

const path = process.argv[2];
if (!path) throw new Error('usage: mcp-baseline-server.ts <tools/call result JSON file>');
const result = JSON.parse(readFileSync(path, 'utf8')) as CallToolResult;

function make(): Server {
  const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', () => result);
  return server;
}

const pool = new LegacyLeg(make, { maxIdle: 64, bodyLimitBytes: 1024 * 1024 });
const authInfo = { token: '', clientId: 'bare', scopes: [] };

const server = serve(
  {
    fetch: (request: Request) => pool.handle(request, authInfo),
    port: 0,
    hostname: '127.0.0.1',
  },
  (info: AddressInfo) =>
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}` })}\n`),
);
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
