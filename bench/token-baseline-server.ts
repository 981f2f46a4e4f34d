import { serveCaptured } from './bare-server.ts';

// Child-process entry of `npm run bench:refresh`: the floor of a token endpoint, a bare node:http
// server that reads and parses the form body (application/x-www-form-urlencoded) and answers the
// token response captured from the provider's own rotation (argv[2]), serialized anew for every
// request, no-store as RFC 6749 §5.1 asks. No client check, hashing, signing, store or audit.
// Prints {"url"}.

serveCaptured('token-baseline-server.ts <token response file>', (body) => {
  const form = new URLSearchParams(body);
  return form.get('grant_type') === 'refresh_token' && Boolean(form.get('refresh_token'));
});
