import type { Context, Hono } from 'hono';
import { authenticateMcp, mcpResource, type TokenCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { mcpServerMetadata } from '../../operations/provider/discovery.ts';
import { type Refusal, refusalResponse } from '../shared/challenge.ts';
import { FrontDoor, type ProtectedResource } from '../shared/front-door.ts';
import { StreamLimit } from '../shared/stream-limit.ts';
import { builtComplete, completed, NO_STORE } from '../shared/with-headers.ts';
import { answerDirectly } from './direct-answer.ts';
import { directCallOf } from './direct-call.ts';
import { refusalBody } from './errors.ts';
import { exchangeOf, type RequestAuth, serveExchange } from './exchange.ts';
import { LegacyLeg } from './legacy-leg.ts';
import { LegacyStreams } from './legacy-stream.ts';
import { ListenRoute } from './listen.ts';
import { ModernLeg, routeMcp } from './modern-leg.ts';
import { createMcpServer, SERVER_INFO } from './server.ts';

// The MCP surface (WIRE-NOTES §5, bindings/mcp.md, docs/mcp.md): Streamable HTTP at /mcp,
// stateless, in both protocol generations. Each request is a short pipeline: Origin check → the
// front door (rate limit, bearer or DPoP authentication for the MCP resource) → the leg of its
// generation (2026-07-28 or 2025) → (a 401/403 a handler asked for). Policy is in the
// operations; this file only translates.

export interface McpOptions {
  readonly bodyLimitBytes: number;
}

/** Who a token names on /mcp: one grant, or a package of several (operations/callers/token-caller.ts). */
const MCP: ProtectedResource<TokenCaller> = {
  kind: 'mcp',
  authenticate: authenticateMcp,
  kindOf: (caller) => caller.kind,
};

/** A few agents of one app, each with a stream or two; not hundreds. */
const MAX_STREAMS_PER_GRANT = 8;

// biome-ignore lint/suspicious/noExplicitAny: mounted on the HTTP app, whatever its bindings
type App = Hono<any>;

export function mountMcp(app: App, deps: Deps, options: McpOptions): void {
  const origin = new URL(deps.provider.baseUrl).origin;
  const door = new FrontDoor(deps, MCP);
  // Streams of change notices one grant may hold open on this instance (shared/stream-limit.ts).
  const streams = new StreamLimit(MAX_STREAMS_PER_GRANT);
  const listen = new ListenRoute(deps, { serverInfo: SERVER_INFO, limit: streams });
  const legacyStreams = new LegacyStreams(deps, { limit: streams });
  const make = () =>
    createMcpServer(deps, {
      followed: async ({ caller }) => {
        if (caller.kind === 'grant') await legacyStreams.followed(caller.caller.grant.grant_id);
      },
    });
  const legacy = new LegacyLeg(make, { maxIdle: 64, bodyLimitBytes: options.bodyLimitBytes });
  const modern = new ModernLeg(make, { bodyLimitBytes: options.bodyLimitBytes });
  const metadata = JSON.stringify(mcpServerMetadata(deps.provider, SERVER_INFO.version));
  app.get('/.well-known/mcp.json', (c) =>
    c.body(metadata, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' }),
  );

  app.on(['POST', 'GET', 'DELETE'], '/mcp', async (c: Context) => {
    const limits: (readonly [string, string])[] = [];
    const response = await answer(c, limits);
    // Every answer here is about a caller's grants and claims, or refuses a caller (docs/mcp.md, "Caching").
    return completed(response, [...limits, NO_STORE]);
  });

  async function answer(c: Context, limits: (readonly [string, string])[]): Promise<Response> {
    // MCP transports §Security: a browser page of another origin must not reach a local server
    // (DNS rebinding). Non-browser clients send no Origin.
    const seen = c.req.header('origin');
    if (seen !== undefined && seen !== origin) {
      return refused(
        door.refuse({ code: 'access_denied', description: `requests from ${seen} are not accepted` }),
      );
    }
    const entry = await door.enter(deps, c, 'required');
    limits.push(...entry.headers);
    if (!entry.ok) return refused(entry.refusal);
    const caller = entry.caller;
    const request = c.req.raw;
    if (c.req.method === 'GET') {
      // A GET opens the stream and has no body. One sent anyway is never read: past Node's buffer
      // the socket stops being read, so a client that then went away was not noticed until the
      // second keep-alive failed (30 s, its grant's stream slot held meanwhile: found by the fuzz).
      if (hasBody(c.req.header('content-length'), c.req.header('transfer-encoding'))) {
        return c.json(
          {
            jsonrpc: '2.0',
            error: {
              code: -32600,
              message: 'a GET opens the notice stream and carries no body; send JSON-RPC messages with POST',
            },
            id: null,
          },
          400,
        );
      }
      // 2025-11-25's server stream: a grant's resource subscriptions (legacy-stream.ts).
      const opened = await legacyStreams.open(caller, c.env?.outgoing);
      if (opened !== undefined) return opened;
    }
    if (c.req.method !== 'POST') {
      // Stateless: no session to end (DELETE), and no server stream for a package token (GET).
      return c.json(
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
        405,
        { Allow: 'POST' },
      );
    }
    const auth: RequestAuth = {
      token: entry.token ?? '',
      clientId: caller.clientId,
      scopes: [],
      resource: new URL(mcpResource(deps)),
    };
    // The body is read once, here (modern-leg.ts#routeMcp), and both the routing and the leg use it.
    const source = {
      stream: c.env?.incoming ?? request.body,
      contentLength: c.req.header('content-length'),
      contentType: c.req.header('content-type'),
    };
    const headers = {
      accept: c.req.header('accept'),
      contentType: source.contentType,
      protocolVersion: c.req.header('mcp-protocol-version'),
      mcpMethod: c.req.header('mcp-method'),
      mcpName: c.req.header('mcp-name'),
    };
    const route = await routeMcp(request, source, options.bodyLimitBytes, (body) =>
      directCallOf(headers, body),
    );
    if (route.kind === 'answer') return route.response;
    if (route.kind === 'direct') {
      // A lone tools/call the provider answers itself (direct-call.ts), as the SDK would.
      const handled = await serveExchange(caller, auth, async (authInfo) => {
        const response = await answerDirectly(deps, exchangeOf(authInfo), route.call, [...limits, NO_STORE]);
        return builtComplete(response);
      });
      return handled.kind === 'answer' ? handled.response : refused(entry.refuse(handled.failure));
    }
    // 2026-07-28 `subscriptions/listen` is answered here, not by the SDK (listen.ts).
    const listening = route.modern ? listen.recognise(route.request, route.parsedBody) : undefined;
    if (listening !== undefined) return listen.serve(caller, listening, c.env?.outgoing);
    const leg = route.modern ? modern : legacy;
    const handled = await serveExchange(caller, auth, (authInfo) =>
      leg.handle(route.request, authInfo, route.parsedBody),
    );
    return handled.kind === 'answer' ? handled.response : refused(entry.refuse(handled.failure));
  }
}

/** A refusal in the OAuth-shaped body MCP clients read (errors.ts#refusalBody). */
function refused(refusal: Refusal): Response {
  return refusalResponse(refusal, refusalBody(refusal.failure));
}

/** Whether a request's headers announce a body (RFC 9112 §6.3: a length above zero, or chunks). */
function hasBody(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  return transferEncoding !== undefined || (contentLength !== undefined && !/^\s*0+\s*$/.test(contentLength));
}
