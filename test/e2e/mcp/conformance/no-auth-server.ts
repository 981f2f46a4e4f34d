import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mountMcp } from '../../../../src/surfaces/mcp/app.ts';
import { mcpGrant } from '../../../support/mcp-client.ts';
import { freePort, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// TEST BUILD ONLY. The MCP conformance suite's server mode cannot send a bearer token, so it runs
// against this: the production MCP surface (mountMcp: Origin check, transport, tools, resources)
// on its own port, behind a proxy that puts one real single-grant token, minted here, on every
// request: the production front door checks it as any other. Production has no such switch.
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
  // The token names the provider's /mcp as its audience; this port serves the same surface.
  const tokens = provider.deps.tokens;
  const verify: typeof tokens.verify = (t, now) => tokens.verify(t, now, [`${provider.url}/mcp`]);
  const deps = {
    ...provider.deps,
    provider: { ...provider.deps.provider, baseUrl: base },
    tokens: new Proxy(tokens, {
      get: (target, name) => {
        if (name === 'verify') return verify;
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  };
  const app = new Hono();
  mountMcp(app, deps, { bodyLimitBytes: 1024 * 1024 });
  // Every request as if it bore the token (the conformance client sends none).
  const withToken = (request: Request) => {
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${token}`);
    return app.fetch(new Request(request, { headers }));
  };
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: withToken, port, hostname: '127.0.0.1' }, (_info: AddressInfo) => {
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
