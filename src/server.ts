import type { AddressInfo } from 'node:net';
import { type HttpBindings, serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Config } from './config.ts';
import type { Deps } from './operations/deps.ts';
import { httpApiMethodsAt, mountHttpApi } from './surfaces/http/app.ts';
import { mountMcp } from './surfaces/mcp/app.ts';
import { mountOAuth } from './surfaces/oauth/mount.ts';
import { errorResponse, serverError } from './surfaces/shared/errors.ts';
import { responseHeaders } from './surfaces/shared/response-headers.ts';
import { mountWebPages } from './surfaces/web/app.ts';

// The composition root: every surface mounted on one listener. Surfaces never import each
// other; what they share (bearer reading, rate limiting, the base of error mapping, response
// JSON) is in surfaces/shared/. A new surface (A2A, AG-UI) is one more mount here.

export interface ServerOptions {
  readonly bodyLimitBytes: number;
  readonly log: (msg: string) => void;
  /** Self-service sign-up on the web pages (`--enable-signup`). */
  readonly signupEnabled?: boolean;
  /** `--dev-allow-http-client-metadata`: OAuth client metadata documents over http (docs/oauth.md). */
  readonly devAllowHttpClientMetadata?: boolean;
}

type Env = { Bindings: HttpBindings };

export function createApp(deps: Deps, options: ServerOptions): Hono<Env> {
  const app = new Hono<Env>();
  app.use(responseHeaders(deps.provider.baseUrl));
  const bodyLimitBytes = options.bodyLimitBytes;
  mountOAuth(app, deps, { bodyLimitBytes });
  mountMcp(app, deps, { bodyLimitBytes });
  mountHttpApi(app, deps, { bodyLimitBytes });
  mountWebPages(app, deps, {
    log: options.log,
    signupEnabled: options.signupEnabled === true,
    devAllowHttpClientMetadata: options.devAllowHttpClientMetadata === true,
  });

  app.notFound((c) => {
    const allowed = httpApiMethodsAt(c.req.path);
    if (allowed.length === 0) {
      return errorResponse({ code: 'not_found', description: `there is no endpoint at ${c.req.path}` });
    }
    // RFC 9110 §15.5.6: a 405 lists the methods the resource supports.
    return errorResponse(
      { code: 'method_not_allowed', description: `${c.req.method} is not allowed on ${c.req.path}` },
      { headers: new Headers({ Allow: allowed.join(', ') }) },
    );
  });
  app.onError((err) => serverError(err, options.log));
  return app;
}

export interface RunningServer {
  /** The URL the server listens on (the actual port when 0 was asked for). */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves every surface on `config.host:config.port`. */
export async function startServer(
  deps: Deps,
  config: Config,
  log: (msg: string) => void,
): Promise<RunningServer> {
  const app = createApp(deps, {
    bodyLimitBytes: config.bodyLimitBytes,
    devAllowHttpClientMetadata: config.devAllowHttpClientMetadata,
    signupEnabled: config.signupEnabled,
    log,
  });
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: config.port, hostname: config.host },
      (info: AddressInfo) => {
        const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${host}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              if ('closeAllConnections' in server) server.closeAllConnections();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
