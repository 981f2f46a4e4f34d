import { ObjectMark } from '../../model/object-mark.ts';

// Headers a surface adds to an answer it did not build itself (the SDK's, on /mcp and /a2a; a
// route's, under a middleware): the rate-limit headers, Cache-Control, CORS, the shared ones. Set
// on the answer itself: copying it into a new Response (`new Response(res.body, res)`) turns a
// body held as a string into a stream that @hono/node-server then pipes chunk by chunk, which
// cost an MCP read more than its whole tools/call dispatch (bench:surfaces, docs/benchmarks.md
// "Issue 27").

/** `response` with `headers` set (replacing any of the same name); a copy only when its headers are immutable. */
export function withHeaders(response: Response, headers: readonly (readonly [string, string])[]): Response {
  try {
    for (const [k, v] of headers) response.headers.set(k, v);
    return response;
  } catch {
    // A Response with immutable headers (Response.redirect, Response.error(), a fetched one): copy it.
    const copy = new Response(response.body, response);
    for (const [k, v] of headers) copy.headers.set(k, v);
    return copy;
  }
}

/** An answer no cache may keep: it is about a caller's grants and claims, or refuses a caller. */
export const NO_STORE = ['Cache-Control', 'no-store'] as const;

/** Answers built with every header their surface adds already in (the direct MCP and A2A ones). */
const complete = new ObjectMark('built complete');

/** Marks `response` as built with every header its surface adds; returns it. */
export function builtComplete(response: Response): Response {
  return complete.set(response, true);
}

/** `response` with the surface's `headers` (withHeaders), unless it was built with them (builtComplete). */
export function completed(response: Response, headers: readonly (readonly [string, string])[]): Response {
  return complete.has(response) ? response : withHeaders(response, headers);
}
