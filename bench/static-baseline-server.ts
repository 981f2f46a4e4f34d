import { serveCaptured } from './bare-server.ts';

// Child-process entry of `npm run bench -- --profile small`: a bare node:http server that reads
// and JSON.parses the request body and answers a fixed document, serialized anew for every request
// (the baseline "only parses and serializes"): the document in the file named by argv[2],
// which the bench captured once from the provider's own answer to the same request, so the bytes
// are the same. No routing beyond the method, no auth, store, policy, resolution or audit.
// Prints {"url"}.

serveCaptured('static-baseline-server.ts <response body file>', (body) => {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
});
