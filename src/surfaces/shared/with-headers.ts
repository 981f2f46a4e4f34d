// Headers a surface adds to an answer it did not build itself (the SDK's, on /mcp and /a2a):
// the rate-limit headers, Cache-Control. Set on the answer itself: copying it into a new
// Response (`new Response(res.body, res)`) turns a body held as a string into a stream that
// @hono/node-server then pipes chunk by chunk, which cost an MCP read more than its whole
// tools/call dispatch (bench:surfaces, docs/benchmarks.md "Issue 27").

/** `response` with `headers` set (replacing any of the same name); a copy only when its headers are immutable. */
export function withHeaders(response: Response, headers: readonly (readonly [string, string])[]): Response {
  try {
    for (const [k, v] of headers) response.headers.set(k, v);
    return response;
  } catch {
    // A Response with immutable headers (Response.error(), a fetched one): copy it.
    const copy = new Response(response.body, response);
    for (const [k, v] of headers) copy.headers.set(k, v);
    return copy;
  }
}
