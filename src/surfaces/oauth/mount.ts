import type { Context, Hono } from 'hono';
import type { Deps } from '../../operations/deps.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../operations/oauth/metadata.ts';
import { RESOURCES, resourceMetadataUrl } from '../../operations/tokens/resources.ts';
import { clientAddress, limitRequest, oauthRateLimited } from '../shared/rate-limit.ts';
import { backChannelCors, openCors } from './cors.ts';
import { BACK_CHANNEL_PATHS, registerOAuthEndpoints } from './endpoints.ts';

// The OAuth 2.1 authorization server's machine-facing side (WIRE-NOTES §3, docs/oauth.md): its
// metadata (RFC 8414), each protected resource's metadata (RFC 9728), and the back-channel
// endpoints. The authorization endpoint is a page, and lives with the pages (web/); its
// consent screen is the consent page.

export interface OAuthMountOptions {
  readonly bodyLimitBytes: number;
}

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;

export function mountOAuth(app: App, deps: Deps, options: OAuthMountOptions): void {
  // Metadata and back-channel endpoints may be called from browser-based clients (no cookies).
  app.use('/.well-known/oauth-*', openCors);
  // Introspection is not among them: it answers only authenticated callers.
  for (const path of BACK_CHANNEL_PATHS) {
    if (path !== '/oauth/introspect') app.use(path, backChannelCors);
  }
  // The authorization server's budget, per address (the authorization endpoint counts here too).
  for (const path of BACK_CHANNEL_PATHS) {
    app.use(path, async (c, next) => {
      const limited = await limitRequest(deps, 'oauth', () => `oauth:${clientAddress(c)}`);
      return limited?.allowed === false ? oauthRateLimited(limited) : next();
    });
  }

  const json = (c: Context, body: string) =>
    c.body(body, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' });
  const asMetadata = JSON.stringify(authorizationServerMetadata(deps.provider));
  app.get('/.well-known/oauth-authorization-server', (c) => json(c, asMetadata));
  for (const { kind } of RESOURCES) {
    const metadata = JSON.stringify(protectedResourceMetadata(deps.provider, kind));
    app.get(new URL(resourceMetadataUrl(deps.provider, kind)).pathname, (c) => json(c, metadata));
  }

  registerOAuthEndpoints(app, deps, options.bodyLimitBytes);
}
