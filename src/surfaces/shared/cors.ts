import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { ObjectMark } from '../../model/object-mark.ts';
import { withHeaders } from './with-headers.ts';

// The provider's one CORS policy (docs/http-api.md "Browsers on another origin"), for what an app's
// page calls from its own origin: the discovery documents, the OAuth metadata and back channel,
// and the HTTP API under /v1 (issue 28: the client library in a browser).
//
// Why it is safe: these routes are authenticated by what the request itself carries (an
// `Authorization` token with its `DPoP` proof, a client's credentials). The policy answers any
// origin with `*` and never with `Access-Control-Allow-Credentials`, and the Fetch standard
// refuses `*` to a request sent with credentials: a page on another site can read nothing a cookie
// authenticated. Its credentialed preflight fails, so a non-simple credentialed request (JSON, a
// custom header) is not even sent, and the answer to a simple one stays opaque, as without CORS.
// The person's session routes (cookie + CSRF token: the web pages, /consent, /app) send no CORS
// headers at all. The one route here a cookie may also open, a review run on the session
// (POST /v1/agui/review), refuses another origin itself and wants the session's CSRF token in
// `X-CSRF-Token`, a header not among those allowed here (agui/caller.ts).
//
// Preflights (OPTIONS) are answered by this middleware itself, 204, before the route's handler:
// neither the front door (rate limit, token) nor an operation sees them, so a preflight spends no
// budget and is never an unauthenticated call refused.

/** What a page's request may carry besides the CORS-safelisted request headers (Fetch standard). */
const ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  // RFC 9449: a browser client sends its proof in `DPoP` and reads the server's `DPoP-Nonce`.
  'DPoP',
  // MCP clients may send it with their OAuth metadata requests (MCP's authorization spec).
  'MCP-Protocol-Version',
];

/** What a page's script may read of an answer besides the CORS-safelisted response headers. */
const EXPOSE_HEADERS = [
  'DPoP-Nonce',
  // The challenge of a 401/403 (RFC 6750 §3, RFC 9449 §7.1, RFC 9728 §5.1: the metadata URL).
  'WWW-Authenticate',
  // How long to wait after a 429, and the budget (shared/rate-limit.ts).
  'Retry-After',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

/** The methods of these routes. */
const ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'DELETE'];

/** How long a browser may keep a preflight's answer, in seconds (Chromium keeps at most 2 h). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** What every answer under the policy carries, besides a preflight's. */
const ANSWER_HEADERS: readonly (readonly [string, string])[] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', EXPOSE_HEADERS.join(', ')],
];

const preflight = cors({
  origin: '*',
  credentials: false,
  allowMethods: ALLOW_METHODS,
  allowHeaders: ALLOW_HEADERS,
  exposeHeaders: EXPOSE_HEADERS,
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
});

/** Requests whose route put the answer headers in itself (`corsAnswerHeaders`). */
const builtIn = new ObjectMark('CORS headers built in');
/** Answers built with the headers in (`withCorsHeaders`, the OAuth back channel's form.ts). */
const carrying = new ObjectMark('carries the CORS headers');

/**
 * CORS for any origin, without credentials, for routes no cookie authenticates (see above): a
 * preflight is answered here (hono/cors), and any other answer gets the policy's headers after its
 * route has made it, unless the route put them in itself.
 */
export const openCors: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'OPTIONS') return preflight(c, next);
  await next();
  if (builtIn.has(c.req.raw) || carrying.has(c.res)) return;
  // Hono's setter copies what it is given: set only when the answer had to be copied.
  const answer = withHeaders(c.res, ANSWER_HEADERS);
  if (answer !== c.res) c.res = answer;
};

/**
 * The policy's headers, for a route under `openCors` to build into its answers (the HTTP API's
 * pipeline): set afterwards, they would make @hono/node-server build a Headers object for an answer
 * it otherwise writes from plain ones (shared/response-headers.ts; docs/benchmarks.md).
 */
export function corsAnswerHeaders(request: Request): readonly (readonly [string, string])[] {
  builtIn.set(request, true);
  return ANSWER_HEADERS;
}

/**
 * The policy's headers added to the plain headers of an answer about to be built; `carriesCors`
 * marks the answer once built, so that `openCors` leaves it as it is (the OAuth back channel,
 * which makes its answers away from the request: a token rotation's answer then goes out without a
 * second Response or a Headers object; docs/benchmarks.md, "Issue 27").
 */
export function withCorsHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [k, v] of ANSWER_HEADERS) headers[k] = v;
  return headers;
}

/** Marks an answer built with `withCorsHeaders`. */
export function carriesCors(response: Response): Response {
  carrying.set(response, true);
  return response;
}
