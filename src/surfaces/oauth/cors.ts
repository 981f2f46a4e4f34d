import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

// CORS of the authorization server's metadata and back-channel endpoints: browser-based clients
// call them (no cookies), so any origin may, and may read the DPoP nonce (RFC 9449 §8.1).

/** What every CORS-open answer carries: what hono's cors middleware sets for the origin `*`. */
const OPEN_CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'DPoP-Nonce',
};

/** The open CORS middleware: preflights answered, and the headers above on every answer. */
export const openCors: MiddlewareHandler = cors({
  origin: '*',
  // RFC 9449: a browser client sends its proof in `DPoP` and reads the server's `DPoP-Nonce`.
  allowHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version', 'DPoP'],
  exposeHeaders: ['DPoP-Nonce'],
});

/** Answers built with the CORS headers already in (`withOpenCors`): left as they are. */
const carrying = new WeakSet<Response>();

/** Adds the open CORS headers to the plain headers of an answer about to be built. */
export function withOpenCors(headers: Record<string, string>): Record<string, string> {
  return Object.assign(headers, OPEN_CORS_HEADERS);
}

/** Marks an answer built with `withOpenCors` headers, for `backChannelCors` to leave alone. */
export function carriesOpenCors(response: Response): Response {
  carrying.add(response);
  return response;
}

/**
 * openCors for the back-channel endpoints, the token endpoint's rotations above all: hono's cors
 * sets its headers on `c.res` before the handler runs, which builds a placeholder Response that
 * the handler's answer is then copied into (a second Response, its body turned into a stream and
 * written out through it: a tenth of a refresh's CPU; docs/benchmarks.md, "Issue 27"). Here a
 * preflight is still hono's, and any other request's answer gets the same headers after the
 * handler, unless it was built with them (form.ts: every answer of these endpoints), which is
 * then written out as it is, without a Headers object. An answer made elsewhere (a 429, a 500)
 * gets them added as before.
 */
export const backChannelCors: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'OPTIONS') return openCors(c, next);
  await next();
  if (carrying.has(c.res)) return;
  try {
    for (const [k, v] of Object.entries(OPEN_CORS_HEADERS)) c.res.headers.set(k, v);
  } catch {
    // A Response built with immutable headers (Response.redirect, a fetched one): copy it.
    const copy = new Response(c.res.body, c.res);
    for (const [k, v] of Object.entries(OPEN_CORS_HEADERS)) copy.headers.set(k, v);
    c.res = copy;
  }
};
