import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Config } from '../../config.ts';
import type { Deps } from '../../operations/deps.ts';
import { createHttpApp } from './app.ts';

export interface RunningServer {
  /** The URL the server listens on (the actual port when 0 was asked for). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startHttpServer(
  deps: Deps,
  config: Config,
  log: (msg: string) => void,
): Promise<RunningServer> {
  const app = createHttpApp(deps, {
    bodyLimitBytes: config.bodyLimitBytes,
    rateLimit: config.rateLimit,
    rateWindowSeconds: config.rateWindowSeconds,
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
