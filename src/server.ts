import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HttpBindings, serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Config } from './config.ts';
import type { Deps } from './operations/deps.ts';
import { mountA2a } from './surfaces/a2a/app.ts';
import { mountAgui } from './surfaces/agui/app.ts';
import { mountHttpApi } from './surfaces/http/app.ts';
import { mountHealth } from './surfaces/http/health.ts';
import { mountMetrics } from './surfaces/http/metrics.ts';
import { mountMcp } from './surfaces/mcp/app.ts';
import { mountOAuth } from './surfaces/oauth/mount.ts';
import { type AccessEntry, accessLog } from './surfaces/shared/access-log.ts';
import { allowedMethods } from './surfaces/shared/allowed-methods.ts';
import { errorResponse, serverError } from './surfaces/shared/errors.ts';
import { SERVER_OPTIONS, trackConnections } from './surfaces/shared/graceful-drain.ts';
import { requestMetrics } from './surfaces/shared/request-metrics.ts';
import { responseHeaders } from './surfaces/shared/response-headers.ts';
import { mountWebPages } from './surfaces/web/app.ts';

// The composition root: every surface mounted on one listener. Surfaces never import each
// other; what they share (bearer reading, rate limiting, the base of error mapping, response
// JSON) is in surfaces/shared/. A new surface is one more mount here.

/** The provider's version, as the A2A agent card states it. */
const PROVIDER_VERSION = '0.1.0';

export interface ServerOptions {
  readonly bodyLimitBytes: number;
  readonly log: (msg: string) => void;
  /** Self-service sign-up on the web pages (`--enable-signup`). */
  readonly signupEnabled?: boolean;
  /** `--dev-allow-http-client-metadata`: OAuth client metadata documents over http (docs/oauth.md). */
  readonly devAllowHttpClientMetadata?: boolean;
  /** Where the access log goes, one entry per request (`ppx serve`); none when absent. */
  readonly accessLog?: (entry: AccessEntry) => void;
  /** True once the server drains (SIGTERM): `/readyz` then answers 503. */
  readonly draining?: () => boolean;
}

type Env = { Bindings: HttpBindings };

export function createApp(deps: Deps, options: ServerOptions): Hono<Env> {
  const app = new Hono<Env>();
  if (options.accessLog) app.use(accessLog(options.accessLog));
  app.use(requestMetrics(deps.metrics));
  app.use(responseHeaders(deps.provider.baseUrl));
  // A request sees every commit made before it began, on any instance or process (the stores'
  // caches check once a request: store.ts#freshReads).
  const fresh = deps.store.freshReads;
  if (fresh !== undefined) app.use((_c, next) => fresh(next));
  mountHealth(app, deps, options.draining ?? (() => false));
  mountMetrics(app, deps);
  const bodyLimitBytes = options.bodyLimitBytes;
  mountOAuth(app, deps, { bodyLimitBytes });
  mountMcp(app, deps, { bodyLimitBytes });
  mountHttpApi(app, deps, { bodyLimitBytes });
  mountAgui(app, deps, { bodyLimitBytes, log: options.log });
  mountA2a(app, deps, { bodyLimitBytes, version: PROVIDER_VERSION, log: options.log });
  mountWebPages(app, deps, {
    log: options.log,
    signupEnabled: options.signupEnabled === true,
    devAllowHttpClientMetadata: options.devAllowHttpClientMetadata === true,
  });

  app.notFound((c) => {
    const allowed = allowedMethods(app.routes, c.req.path);
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
  /** Stops at once: every connection is closed, whatever it was doing. */
  close(): Promise<void>;
  /**
   * Stops gracefully (SIGTERM): no new connections, `/readyz` answers 503, requests in flight
   * are answered, those whose bytes are not read yet included (keep-alive connections are closed
   * once idle; shared/graceful-drain.ts), and after `graceMs` whatever is still open (a stream)
   * is closed.
   */
  drain(graceMs: number): Promise<void>;
}

/** Serves every surface on `config.host:config.port`. */
export async function startServer(
  deps: Deps,
  config: Config,
  log: (msg: string) => void,
  extras: { readonly accessLog?: (entry: AccessEntry) => void } = {},
): Promise<RunningServer> {
  let draining = false;
  const app = createApp(deps, {
    bodyLimitBytes: config.bodyLimitBytes,
    devAllowHttpClientMetadata: config.devAllowHttpClientMetadata,
    signupEnabled: config.signupEnabled,
    log,
    ...(extras.accessLog ? { accessLog: extras.accessLog } : {}),
    draining: () => draining,
  });
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: config.port, hostname: config.host, serverOptions: SERVER_OPTIONS },
      (info: AddressInfo) => {
        const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        const http = server as Server;
        resolve({
          url: `http://${host}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              http.closeAllConnections();
            }),
          drain: (graceMs) => {
            draining = true;
            return drainer.drain(graceMs);
          },
        });
      },
    );
    // serve() has only just called listen(): no connection was accepted yet.
    const drainer = trackConnections(server as Server);
    server.once('error', reject);
  });
}
