import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerJson, serveBare } from './bare-server.ts';

// Child-process entry of `npm run bench -- --profile small`: a bare node:http server that reads
// and JSON.parses the request body and answers a fixed document, serialized anew for every request
// (the baseline "only parses and serializes"): the document in the file named by argv[2],
// which the bench captured once from the provider's own answer to the same request, so the bytes
// are the same. No routing beyond the method, no auth, store, policy, resolution or audit.
// Prints {"url"}.

const path = process.argv[2];
if (!path) throw new Error('usage: static-baseline-server.ts <response body file>');
const document: unknown = JSON.parse(readFileSync(path, 'utf8'));

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_request"}');
      return;
    }
    answerJson(res, JSON.stringify(document));
  });
}

serveBare(handle);
