import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Runs a bare `node:http` baseline as a bench child: listens on a free loopback port, prints
 * {"url"} as its ready line (bench/children.ts) and stops on SIGTERM, SIGINT or when its stdin
 * closes (the bench ended, however it ended).
 */
export function serveBare(handle: (req: IncomingMessage, res: ServerResponse) => void): void {
  const server = createServer(handle);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}

/** Answers `text` as a JSON document, no-store, with its length: what every baseline sends. */
export function answerJson(res: ServerResponse, text: string): void {
  res
    .writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'content-length': String(Buffer.byteLength(text)),
    })
    .end(text);
}
