import type { Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import type { Deps } from '../../../operations/deps.ts';
import {
  type AuthorizationRequest,
  checkAuthorization,
  startOAuthConsent,
} from '../../../operations/oauth/authorize.ts';
import {
  authorizationServerMetadata,
  oauthResources,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from '../../../operations/oauth/metadata.ts';
import { authorizationResponse } from '../../../operations/oauth/redirect.ts';
import { send } from '../../web/respond.ts';
import { cookiePlan, currentSession, RETURN_TO_LIMIT } from '../../web/session.ts';
import { messagePage } from '../../web/signin.ts';
import { RateLimiter } from '../rate-limit.ts';
import { registerOAuthEndpoints } from './endpoints.ts';

// The OAuth 2.1 authorization server (WIRE-NOTES §3, docs/oauth.md), mounted on the HTTP app
// with one line in app.ts. Its consent screen is the consent page of src/surfaces/web.

export interface OAuthMountOptions {
  readonly bodyLimitBytes: number;
  readonly rateLimit: number;
  readonly rateWindowSeconds: number;
  /** `--dev-allow-http-client-metadata`. */
  readonly devAllowHttpClientMetadata?: boolean | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: mounted on the HTTP app, whatever its bindings
type App = Hono<any>;

/** Must be called before the other routes are added: its middleware wraps theirs. */
/** The longest Location the authorize endpoint sends to sign-in (headers end at 16 KiB). */
const LOCATION_LIMIT = 12 * 1024;

export function mountOAuth(app: App, deps: Deps, options: OAuthMountOptions): void {
  const base = deps.provider.baseUrl;
  const resources = oauthResources(deps.provider);
  const metadataUrl = {
    api: protectedResourceMetadataUrl(deps.provider, 'api'),
    mcp: protectedResourceMetadataUrl(deps.provider, 'mcp'),
  };
  const limiter = new RateLimiter(options.rateLimit, options.rateWindowSeconds);
  const plan = cookiePlan(base);

  // RFC 9728 §5.1: every Bearer challenge names the protected resource metadata, so a client
  // that meets a 401 can discover the authorization server.
  app.use('*', async (c, next) => {
    await next();
    if (c.res.status !== 401) return;
    const challenge = c.res.headers.get('WWW-Authenticate');
    if (!challenge?.startsWith('Bearer') || challenge.includes('resource_metadata=')) return;
    const url = c.req.path === '/mcp' || c.req.path.startsWith('/mcp/') ? metadataUrl.mcp : metadataUrl.api;
    const res = new Response(c.res.body, c.res);
    res.headers.set('WWW-Authenticate', `${challenge}, resource_metadata="${url}"`);
    c.res = undefined;
    c.res = res;
  });

  // Metadata and back-channel endpoints may be called from browser-based clients (no cookies).
  for (const path of [
    '/.well-known/oauth-*',
    '/oauth/token',
    '/oauth/register',
    '/oauth/revoke',
    '/oauth/package/disconnect',
  ]) {
    app.use(
      path,
      cors({ origin: '*', allowHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version'] }),
    );
  }
  app.use('/oauth/*', async (c, next) => {
    if (!limiter.enabled) return next();
    const key = `oauth:${c.env?.incoming?.socket?.remoteAddress ?? 'unknown'}`;
    const { allowed, headers } = limiter.take(key, Date.now());
    if (allowed) return next();
    return c.json(
      { error: 'rate_limited', error_description: 'too many requests' },
      429,
      Object.fromEntries(headers),
    );
  });

  const asMetadata = JSON.stringify(authorizationServerMetadata(deps.provider));
  const json = (c: Context, body: string) =>
    c.body(body, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' });
  app.get('/.well-known/oauth-authorization-server', (c) => json(c, asMetadata));
  const prmApi = JSON.stringify(protectedResourceMetadata(deps.provider, resources.api));
  const prmMcp = JSON.stringify(protectedResourceMetadata(deps.provider, resources.mcp));
  app.get('/.well-known/oauth-protected-resource', (c) => json(c, prmApi));
  app.get('/.well-known/oauth-protected-resource/mcp', (c) => json(c, prmMcp));

  // RFC 6749 §4.1.1. Client and redirect_uri are checked first: until both are verified, any
  // problem is shown here and the browser is never sent to the URI (§4.1.2.1).
  app.get('/oauth/authorize', async (c) => {
    const url = new URL(c.req.url);
    const params: Record<string, string[]> = {};
    for (const [k, v] of url.searchParams) params[k] = [...(params[k] ?? []), v];
    const check = await checkAuthorization(deps, params, {
      allowDev: options.devAllowHttpClientMetadata === true,
    });
    if (check.kind === 'page') {
      const text = `${check.problem.description}. The app that sent you here is misconfigured; nothing was shared.`;
      return send(c, messagePage(deps.provider.name, 'This sign-in link is not valid', text), 400);
    }
    if (check.kind === 'redirect') return c.redirect(check.to, 302);
    const session = await currentSession(c, deps, plan);
    if (!session) {
      const back = url.pathname + url.search;
      const signIn = `/signin?return_to=${encodeURIComponent(back)}`;
      // Sign-in drops a return path past its limit, and a Location past Node's 16 KiB header
      // limit never arrives: either way the request would be lost, so say so instead.
      if (back.length > RETURN_TO_LIMIT || signIn.length > LOCATION_LIMIT) {
        const text =
          'The request is too long to be carried through sign-in. The app that sent you here should ask for less; nothing was shared.';
        return send(c, messagePage(deps.provider.name, 'This sign-in link is too long', text), 400);
      }
      return c.redirect(signIn, 302);
    }
    return startConsent(c, deps, session.record.subject_id, check.request);
  });

  registerOAuthEndpoints(app, deps, options.bodyLimitBytes);
}

/**
 * Creates the consent request for the signed-in subject and sends the browser to the consent
 * page. What the page decides comes back to the client as code + state + iss (RFC 9207).
 */
async function startConsent(c: Context, deps: Deps, subjectId: string, request: AuthorizationRequest) {
  const created = await startOAuthConsent(deps, subjectId, request);
  if (created.ok) return c.redirect(`/consent/${encodeURIComponent(created.value.grant_request_id)}`, 302);
  // Namespaces or keys this provider does not hold: the details asked for cannot be granted.
  const back = authorizationResponse(deps, request.redirect_uri, request.state, {
    error: 'invalid_authorization_details',
    description: created.error.description,
  });
  return c.redirect(back, 302);
}
