import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerJson, serveBare } from './bare-server.ts';

// Child-process entry of `npm run bench:refresh`: the floor of a token endpoint, a bare node:http
// server that reads and parses the form body (application/x-www-form-urlencoded) and answers the
// token response captured from the provider's own rotation (argv[2]), serialized anew for every
// request, no-store as RFC 6749 §5.1 asks. No client check, hashing, signing, store or audit.
// Prints {"url"}.

const path = process.argv[2];
if (!path) throw new Error('usage: token-baseline-server.ts <token response file>');
const document: unknown = JSON.parse(readFileSync(path, 'utf8'));

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    if (form.get('grant_type') !== 'refresh_token' || !form.get('refresh_token')) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_request"}');
      return;
    }
    answerJson(res, JSON.stringify(document));
  });
}

serveBare(handle);
