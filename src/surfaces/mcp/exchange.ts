import type { AuthInfo } from '@modelcontextprotocol/server';
import type { PpxFailure } from '../../model/errors.ts';
import type { TokenCaller } from '../../operations/callers/token-caller.ts';

// One HTTP request on /mcp as the handlers see it, whichever protocol generation serves it
// (legacy-leg.ts for 2025-11-25 and older, modern-leg.ts for 2026-07-28). The SDK carries it to
// the handlers in `authInfo.extra`.

/** What one request carries into the handlers: the caller the front door let in. */
export interface McpExchange {
  readonly caller: TokenCaller;
  /**
   * Hands the leg a failure the HTTP layer answers with a status of its own (401/403,
   * WIRE-NOTES §5): the leg returns it as a value in place of the SDK's answer. The first wins
   * (a batch may refuse twice).
   */
  refuse(failure: PpxFailure): void;
}

/** The leg's answer, or the failure a handler asked the HTTP layer to answer. */
export type LegAnswer =
  | { readonly kind: 'answer'; readonly response: Response }
  | { readonly kind: 'refused'; readonly failure: PpxFailure };

/** What the front door knows of the request, as the SDK's `authInfo` carries it (without `extra`). */
export type RequestAuth = Omit<AuthInfo, 'extra'>;

/**
 * Serves one request through a leg with a fresh exchange, and returns the leg's answer or the
 * failure a handler refused with. The exchange lives as long as this call, and nothing but the
 * handlers of this one request can reach it.
 */
export async function serveExchange(
  caller: TokenCaller,
  auth: RequestAuth,
  leg: (authInfo: AuthInfo) => Promise<Response>,
): Promise<LegAnswer> {
  let refused = undefined as PpxFailure | undefined;
  const exchange: McpExchange = {
    caller,
    refuse: (failure) => {
      refused ??= failure;
    },
  };
  const response = await leg({ ...auth, extra: { ppx: exchange } });
  return refused === undefined ? { kind: 'answer', response } : { kind: 'refused', failure: refused };
}

/** The exchange of a request, from the SDK's `authInfo.extra`. */
export function exchangeOf(authInfo: AuthInfo | undefined): McpExchange {
  const exchange = authInfo?.extra?.['ppx'] as McpExchange | undefined;
  // The HTTP layer authenticates before any leg; a handler without a caller is a bug.
  if (!exchange) throw new Error('MCP request reached a handler without an authenticated caller');
  return exchange;
}
