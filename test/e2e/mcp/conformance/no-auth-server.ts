import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { authenticateMcp } from '../../../../src/operations/mcp-caller.ts';
import { mountMcp } from '../../../../src/surfaces/mcp/app.ts';
import { mcpGrant } from '../../../support/mcp-client.ts';
import { freePort, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// TEST BUILD ONLY. The MCP conformance suite's server mode cannot send a bearer token, so it runs
// against this: the production MCP surface (mountMcp: Origin check, transport, tools, resources)
// on its own port, with the bearer check replaced by a fixed caller — every request acts under one
// real single-grant token minted here, whatever it presents. Production has no such switch:
// mountMcp's `authenticate` parameter is only passed here.
//
//   node test/e2e/mcp/conformance/no-auth-server.ts   prints {"url": "http://127.0.0.1:…/mcp"}, serves
//                                               until SIGTERM/SIGINT (used by scripts/mcp-conformance.sh)

export interface NoAuthMcp {
  /** The MCP endpoint (…/mcp). */
  readonly url: string;
  readonly provider: TestProvider;
  close(): Promise<void>;
}

export async function startNoAuthMcp(): Promise<NoAuthMcp> {
  const provider = await startTestProvider();
  const { token } = await mcpGrant(provider);
  // The surface's base URL is this server's, so that its Origin check accepts its own origin
  // (the conformance DNS-rebinding scenario); the token is checked against the provider's.
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const deps = { ...provider.deps, provider: { ...provider.deps.provider, baseUrl: base } };
  const app = new Hono();
  mountMcp(app, deps, { bodyLimitBytes: 1024 * 1024 }, () => authenticateMcp(provider.deps, token));
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (_info: AddressInfo) => {
      resolve({
        url: `${base}/mcp`,
        provider,
        close: async () => {
          await new Promise<void>((done) => {
            server.close(() => done());
            if ('closeAllConnections' in server) server.closeAllConnections();
          });
          await provider.close();
        },
      });
    });
    server.once('error', reject);
  });
}

if (import.meta.main) {
  const running = await startNoAuthMcp();
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
}
