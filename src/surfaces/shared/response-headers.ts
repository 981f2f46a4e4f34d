import type { MiddlewareHandler } from 'hono';
import { ObjectMark } from '../../model/object-mark.ts';
import { withHeaders } from './with-headers.ts';

// Headers every answer carries, whatever the surface, set once by the composition root
// (src/server.ts) around every mount, its 404, 405 and 500 answers included.

/** One year, the usual HSTS max-age (RFC 6797 §6.1.1); no includeSubDomains, no preload. */
const HSTS_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/**
 * `X-Content-Type-Options: nosniff` on every answer: a JSON body (a claim value, an error
 * description) is never sniffed into HTML or script. When the base URL is https,
 * `Strict-Transport-Security` too: the provider then sits behind TLS (often a proxy that
 * terminates it, so the header is sent whatever this listener sees; browsers ignore it over
 * plain http, RFC 6797 §8.1), and a browser that has seen it never again goes there over http.
 */
export function responseHeaders(baseUrl: string): MiddlewareHandler {
  const headers = sharedHeaders(baseUrl);
  return async (c, next) => {
    await next();
    if (carrying.has(c.res)) return;
    // Hono's setter copies what it is given: set only when the answer had to be copied.
    const answer = withHeaders(c.res, headers);
    if (answer !== c.res) c.res = answer;
  };
}

/** The headers every answer carries, for a base URL. */
function sharedHeaders(baseUrl: string): readonly (readonly [string, string])[] {
  const headers: [string, string][] = [['X-Content-Type-Options', 'nosniff']];
  if (new URL(baseUrl).protocol === 'https:') {
    headers.push(['Strict-Transport-Security', `max-age=${HSTS_MAX_AGE_SECONDS}`]);
  }
  return headers;
}

/** Answers built with the shared headers already in (`withSharedHeaders`): left as they are. */
const carrying = new ObjectMark('carries the shared headers');

/**
 * A JSON answer with plain headers and the shared ones already in, which the middleware then
 * leaves alone: @hono/node-server writes such an answer without building a Headers object for it,
 * a measurable part of a small read (issue 10; docs/benchmarks.md).
 */
export function answerWithSharedHeaders(
  baseUrl: string,
  body: string | Uint8Array | null,
  status: number,
  headers: Record<string, string>,
): Response {
  for (const [k, v] of sharedHeadersOf(baseUrl)) headers[k] = v;
  // A large text is encoded to UTF-8 once here: handed over as a string, it would be measured
  // (Buffer.byteLength, for Content-Length) and then encoded again into the socket.
  const bytes = typeof body === 'string' && body.length > LARGE_BODY_CHARS ? Buffer.from(body, 'utf8') : body;
  const response = new Response(bytes, { status, headers });
  carrying.set(response, true);
  return response;
}

/** Above this many characters a body goes out as bytes (an audit page of 50 reads: ~300 KB). */
const LARGE_BODY_CHARS = 16_384;

const byBase = new Map<string, readonly (readonly [string, string])[]>();
function sharedHeadersOf(baseUrl: string): readonly (readonly [string, string])[] {
  let headers = byBase.get(baseUrl);
  if (headers === undefined) {
    headers = sharedHeaders(baseUrl);
    byBase.set(baseUrl, headers);
  }
  return headers;
}
