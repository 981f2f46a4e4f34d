import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type CallToolResult, createMcpHandler, Server } from '@modelcontextprotocol/server';

// Child-process entry for `npm run bench:mcp` (2026-07-28): a bare MCP server on the official SDK
// (v2) as the SDK means 2026-07-28 to be served — `createMcpHandler` with a factory that builds
// the low-level `Server` with one `tools/call` handler per request, on @hono/node-server —
// answering with a precomputed result: the provider's own `ppx_get_effective_profile` answer,
// read from the file named by argv[2]. The handler's options are the provider's (modern-leg.ts:
// 2025 requests rejected, `responseMode: 'auto'`). No auth, no store, no policy, no resolution,
// no audit, no router, no routing between generations. Prints one JSON line {"url"} on stdout.

const path = process.argv[2];
if (!path) throw new Error('usage: mcp-modern-baseline-server.ts <tools/call result JSON file>');
const result = JSON.parse(readFileSync(path, 'utf8')) as CallToolResult;

const handler = createMcpHandler(
  () => {
    const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/call', () => result);
    return server;
  },
  { legacy: 'reject', responseMode: 'auto', maxRequestBodySize: 1024 * 1024 },
);

const server = serve(
  { fetch: (request: Request) => handler.fetch(request), port: 0, hostname: '127.0.0.1' },
  (info: AddressInfo) =>
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}` })}\n`),
);
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
