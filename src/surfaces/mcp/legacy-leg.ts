import {
  type AuthInfo,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/**
 * The 2025 generation of MCP (2025-11-25 and the revisions before it, `initialize` first):
 * stateless Streamable HTTP with reused servers. The SDK wants a fresh transport per request in
 * stateless mode, and a `Server` serves one transport at a time, so idle servers wait here and
 * each request borrows one: connect a new transport, answer, close, give back. Building a
 * server is paid once per concurrent request slot, not per request. Nothing in a pooled server
 * outlives a request except what `initialize` records about the last client, which no handler
 * reads. The servers here serve this generation only: a server answering 2026-07-28 is bound to
 * that revision (modern-leg.ts), so the two never share one.
 *
 * This leg and not the SDK's own stateless fallback (`createMcpHandler`'s `legacy: 'stateless'`):
 * that one answers by SSE, which puts a 200 on the wire before a handler can ask for a 401/403.
 */
export class LegacyLeg {
  readonly #make: () => Server;
  readonly #idle: Server[] = [];
  readonly #maxIdle: number;
  readonly #bodyLimit: number;

  constructor(make: () => Server, options: { maxIdle: number; bodyLimitBytes: number }) {
    this.#make = make;
    this.#maxIdle = options.maxIdle;
    this.#bodyLimit = options.bodyLimitBytes;
  }

  /** `parsedBody`: the body as app.ts read it (modern-leg.ts#routeMcp); without it the transport reads it. */
  async handle(request: Request, authInfo: AuthInfo, parsedBody?: unknown): Promise<Response> {
    const server = this.#idle.pop() ?? this.#make();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // One JSON answer per POST: every result is complete when handleRequest resolves, so the
      // HTTP layer can still replace it with a 401/403 (WIRE-NOTES §5).
      enableJsonResponse: true,
      maxRequestBodySize: this.#bodyLimit,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, {
        authInfo,
        ...(parsedBody !== undefined ? { parsedBody } : {}),
      });
    } finally {
      await server.close();
      if (this.#idle.length < this.#maxIdle) this.#idle.push(server);
    }
  }
}
