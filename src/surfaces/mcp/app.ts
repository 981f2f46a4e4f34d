import type { Context, Hono } from 'hono';
import type { PpxFailure } from '../../model/errors.ts';
import { authenticateMcp, mcpResource } from '../../operations/callers/token-caller.ts';
import { childId } from '../../operations/child-ids.ts';
import type { Deps } from '../../operations/deps.ts';
import { mcpServerMetadata } from '../../operations/provider/discovery.ts';
import { resourceMetadataUrl } from '../../operations/tokens/resources.ts';
import { noteCaller } from '../shared/access-log.ts';
import { limiterKey, readBearer } from '../shared/bearer.ts';
import { clientAddress, limitRequest, RATE_LIMITED } from '../shared/rate-limit.ts';
import { wireText } from './errors.ts';
import { ServerPool } from './pool.ts';
import { createMcpServer, type McpRequestContext } from './server.ts';

// The MCP surface (WIRE-NOTES §5, bindings/mcp.md): Streamable HTTP at /mcp, stateless. Each
// request is a short pipeline: Origin check → rate limit → bearer authentication → transport →
// (a 401/403 a handler asked for). Policy is in the operations; this file only translates.

export interface McpOptions {
  readonly bodyLimitBytes: number;
}

/** Resolves a bearer token to a caller. Tests may inject one (a fixed caller); see below. */
export type McpAuthenticator = typeof authenticateMcp;

// biome-ignore lint/suspicious/noExplicitAny: mounted on the HTTP app, whatever its bindings
type App = Hono<any>;

/**
 * `authenticate` exists only for tests (test/e2e/mcp-tools/no-auth-server.ts mounts the surface
 * with a fixed caller for the conformance suite, which cannot send a bearer token). Production
 * never passes it: the default is the real check, and there is no configuration that disables it.
 */
export function mountMcp(
  app: App,
  deps: Deps,
  options: McpOptions,
  authenticate: McpAuthenticator = authenticateMcp,
): void {
  const base = deps.provider.baseUrl;
  const origin = new URL(base).origin;
  const prm = resourceMetadataUrl(deps.provider, 'mcp');
  const pool = new ServerPool(() => createMcpServer(deps), {
    maxIdle: 64,
    bodyLimitBytes: options.bodyLimitBytes,
  });
  const metadata = JSON.stringify(mcpServerMetadata(deps.provider, SERVER_VERSION));
  app.get('/.well-known/mcp.json', (c) =>
    c.body(metadata, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' }),
  );

  app.on(['POST', 'GET', 'DELETE'], '/mcp', async (c: Context) => {
    const limits: (readonly [string, string])[] = [];
    const response = await answer(c, limits);
    const out = new Response(response.body, response); // headers of a Response may be immutable
    for (const [k, v] of limits) out.headers.set(k, v);
    // Every answer here is about a caller's grants and claims, or refuses a caller: none may be
    // kept by a cache (docs/mcp.md, "Caching").
    out.headers.set('Cache-Control', 'no-store');
    return out;
  });

  async function answer(c: Context, limits: (readonly [string, string])[]): Promise<Response> {
    // MCP transports §Security: a browser page of another origin must not reach a local server
    // (DNS rebinding). Non-browser clients send no Origin.
    const seen = c.req.header('origin');
    if (seen !== undefined && seen !== origin) {
      return oauthError(403, {
        code: 'access_denied',
        description: `requests from ${seen} are not accepted`,
      });
    }
    const token = readBearer(c.req.header('authorization'));
    // The HTTP API's budget (one per token, else per address); every answer carries RateLimit-*.
    const limited = await limitRequest(deps, 'api', () => limiterKey(token, clientAddress(c)));
    if (limited) limits.push(...limited.headers);
    if (limited?.allowed === false) return oauthError(429, RATE_LIMITED);
    const caller = token?.ok === false ? token : await authenticate(deps, token?.value);
    if (!caller.ok) {
      const challenge =
        token === undefined
          ? `Bearer resource_metadata="${prm}"`
          : bearerChallenge(prm, 'invalid_token', caller.error.description);
      return oauthError(401, caller.error, challenge);
    }
    if (c.req.method !== 'POST') {
      // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
      return c.json(
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
        405,
        { Allow: 'POST' },
      );
    }
    noteCaller(c.req.raw, caller.value.kind);
    const context: McpRequestContext = { caller: caller.value };
    const response = await pool.handle(c.req.raw, {
      token: token?.ok ? token.value : '',
      clientId: caller.value.clientId,
      scopes: [],
      resource: new URL(mcpResource(deps)),
      extra: { ppx: context },
    });
    const raised = context.transportFailure;
    if (raised === undefined) return response;
    const challenge = raised.bearerError
      ? bearerChallenge(prm, raised.bearerError, raised.failure.description)
      : undefined;
    // A package child is named by its child id wherever the read profile applies (child-ids.ts).
    const failure =
      caller.value.kind === 'package' && raised.failure.grantId !== undefined
        ? { ...raised.failure, grantId: childId(raised.failure.grantId) }
        : raised.failure;
    return oauthError(raised.status, failure, challenge);
  }
}

const SERVER_VERSION = '0.1.0';

/** RFC 6750 §3 with the RFC 9728 §5.1 `resource_metadata` parameter. */
function bearerChallenge(prm: string, error: string, description: string): string {
  const text = wireText(description).replace(/["\\]/g, '');
  return `Bearer resource_metadata="${prm}", error="${error}", error_description="${text}"`;
}

/** The OAuth-shaped body of a 401/403 (as the SDK's own bearer middleware answers). */
function oauthError(status: number, failure: PpxFailure, challenge?: string): Response {
  const headers = new Headers({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  if (challenge !== undefined) headers.set('WWW-Authenticate', challenge);
  const body = {
    error: failure.code,
    error_description: wireText(failure.description),
    ...(failure.grantId !== undefined ? { grant_id: failure.grantId } : {}),
  };
  return new Response(JSON.stringify(body), { status, headers });
}
