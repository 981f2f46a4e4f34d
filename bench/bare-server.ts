import { readFileSync } from 'node:fs';
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
  stopWhenTold(() => {
    server.close();
    server.closeAllConnections();
  });
}

/** Runs `close` and exits on SIGTERM, SIGINT or when stdin closes (the bench ended, however it ended). */
export function stopWhenTold(close: () => void): void {
  const stop = (): void => {
    close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}

/** Answers `text` as a JSON document, no-store, with its length: what every baseline sends. */
function answerJson(res: ServerResponse, text: string): void {
  res
    .writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'content-length': String(Buffer.byteLength(text)),
    })
    .end(text);
}

/** Calls `done` with the whole request body as text. */
export function readBody(req: IncomingMessage, done: (body: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

/**
 * A baseline answering one document, the file named by argv[2] (the provider's own answer,
 * captured by the bench), serialized anew, to every POST whose body `accepts` takes: 400 for one
 * it refuses, 405 for another method.
 */
export function serveCaptured(usage: string, accepts: (body: string) => boolean): void {
  const path = process.argv[2];
  if (!path) throw new Error(`usage: ${usage}`);
  const document: unknown = JSON.parse(readFileSync(path, 'utf8'));
  serveBare((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    readBody(req, (body) => {
      if (!accepts(body)) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_request"}');
        return;
      }
      answerJson(res, JSON.stringify(document));
    });
  });
}
