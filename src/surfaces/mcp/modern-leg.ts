import { type AuthInfo, createMcpHandler, isLegacyRequest, type Server } from '@modelcontextprotocol/server';

/**
 * MCP 2026-07-28 (no `initialize`, no session: `server/discover`, and the protocol version and
 * the client's capabilities in `_meta` on every request), served by the SDK's own entry
 * (`createMcpHandler`), which checks the envelope and the standard headers and builds one
 * server per request, bound to the revision the request names. Only requests of this generation
 * come here (`isModern`); `subscriptions/listen` is ours (listen.ts), not the SDK's.
 */
export class ModernLeg {
  readonly #handler: ReturnType<typeof createMcpHandler>;

  constructor(make: () => Server, options: { bodyLimitBytes: number }) {
    this.#handler = createMcpHandler(() => make(), {
      // Requests of the 2025 generation never reach this handler (legacy-leg.ts serves them).
      legacy: 'reject',
      // A single JSON body unless a handler sends a message before its result, which ours never
      // do: `fetch` settles once the handler has answered, so a 401/403 can still replace it.
      responseMode: 'auto',
      maxRequestBodySize: options.bodyLimitBytes,
      // The SDK's listen router would tell every stream of every grantee alike; listen.ts answers
      // listens, and one that reaches the SDK (malformed headers) is refused here, never served.
      maxSubscriptions: 0,
    });
  }

  handle(request: Request, authInfo: AuthInfo): Promise<Response> {
    return this.#handler.fetch(request, { authInfo });
  }

  close(): Promise<void> {
    return this.#handler.close();
  }
}

/** Whether a request belongs to 2026-07-28 (the SDK's own routing decision, not ours). */
export async function isModern(request: Request, bodyLimitBytes: number): Promise<boolean> {
  return !(await isLegacyRequest(request, undefined, { maxRequestBodySize: bodyLimitBytes }));
}
