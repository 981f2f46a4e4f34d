import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJSONRPCError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { PpxFailure } from '../../model/errors.ts';
import { HttpLevelFailure } from './errors.ts';
import { invalidParams } from './request-params.ts';

/** The transport's answer, or the failure a handler asked the HTTP layer to answer (errors.ts). */
export type PoolAnswer =
  | { readonly kind: 'answer'; readonly response: Response }
  | { readonly kind: 'refused'; readonly failure: PpxFailure };

/**
 * Stateless Streamable HTTP with reused servers. The SDK (1.x) wants a fresh transport per
 * request in stateless mode, and a `Server` serves one transport at a time, so idle servers wait
 * here and each request borrows one: connect a new transport, answer, close, give back. Building
 * the server and its listings is paid once per concurrent request slot, not per request.
 * Nothing in a pooled server outlives a request except what `initialize` records about the last
 * client, which no handler reads.
 */
export class ServerPool {
  readonly #make: () => Server;
  readonly #idle: Server[] = [];
  readonly #maxIdle: number;
  readonly #bodyLimit: number;

  constructor(make: () => Server, options: { maxIdle: number; bodyLimitBytes: number }) {
    this.#make = make;
    this.#maxIdle = options.maxIdle;
    this.#bodyLimit = options.bodyLimitBytes;
  }

  async handle(request: Request, authInfo: AuthInfo): Promise<PoolAnswer> {
    const server = this.#idle.pop() ?? this.#make();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // One JSON answer per POST: every result is complete when handleRequest resolves, so the
      // HTTP layer can still replace it with a 401/403 (WIRE-NOTES §5).
      enableJsonResponse: true,
      maxRequestBodySize: this.#bodyLimit,
    });
    await server.connect(transport);
    // Malformed params are answered here, in words (request-params.ts), not by the SDK's parse.
    const dispatch = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const refused = invalidParams(message);
      if (refused === undefined) dispatch?.(message, extra);
      // The send fails when its id has no request left to answer (a batch naming one id twice,
      // the first already answered): that answer is dropped, as the SDK drops its own. Left
      // unhandled, the rejection would end the process.
      else transport.send(refused).catch(() => undefined);
    };
    // A handler's HTTP-level failure leaves it as a JSON-RPC error whose data is the failure; the
    // error is still sent (the transport answers once every request has been), then set aside.
    let refused: PpxFailure | undefined;
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if (isJSONRPCError(message) && message.error.data instanceof HttpLevelFailure) {
        refused ??= message.error.data.failure;
      }
      return send(message, options);
    };
    try {
      const response = await transport.handleRequest(request, { authInfo });
      return refused === undefined ? { kind: 'answer', response } : { kind: 'refused', failure: refused };
    } finally {
      await server.close();
      if (this.#idle.length < this.#maxIdle) this.#idle.push(server);
    }
  }
}
