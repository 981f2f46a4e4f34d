import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { stopWhenTold } from './bare-server.ts';

// Child-process entry of `npm run bench -- --profile small`: what the provider's HTTP framework
// costs on its own. The static baseline's work (read and JSON.parse the body, answer the captured
// document serialized anew) on the provider's stack: Hono on @hono/node-server, one POST route,
// the answer built as the provider builds it (a Response with plain headers). No auth, store,
// policy, resolution, audit or middleware. Between the bare baseline and the provider it splits the
// gap into the framework's share and the provider's own work. Prints {"url"}.

const path = process.argv[2];
if (!path) throw new Error('usage: hono-baseline-server.ts <response body file>');
const document: unknown = JSON.parse(readFileSync(path, 'utf8'));

const app = new Hono();
app.post('*', async (c) => {
  try {
    JSON.parse(await c.req.text());
  } catch {
    return c.body('{"error":"invalid_request"}', 400, { 'content-type': 'application/json' });
  }
  return new Response(JSON.stringify(document), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}` })}\n`);
});
stopWhenTold(() => server.close());
