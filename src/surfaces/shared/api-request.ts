import type { Context } from 'hono';
import type { PpxFailure, Result } from '../../model/errors.ts';
import type { Deps } from '../../operations/deps.ts';
import { limiterKey, readBearer } from './bearer.ts';
import { type ErrorResponseOptions, errorResponse } from './errors.ts';
import { clientAddress, limitRequest, RATE_LIMITED } from './rate-limit.ts';

// How a request to a JSON surface with PPX errors begins (the HTTP API, the AG-UI stream): read
// the bearer token, count the request against the API's budget (one per token, else per address),
// and keep the headers every answer to it carries. WIRE-NOTES §2.7: the rate limit comes first.

export interface ApiRequest {
  /** The bearer token as read: absent, or well-formed, or the reason it is not. */
  readonly token: Result<string> | undefined;
  /** Headers for the answer, whichever it is (rate limits; a surface may add more). */
  readonly headers: [string, string][];
  /** A PPX error answer carrying those headers. */
  respond(failure: PpxFailure, tokenPresented?: boolean): Response;
  /** The answer when the rate limit refused the request. */
  readonly refused?: Response;
}

export async function startApiRequest(
  deps: Deps,
  c: Context,
  errors: Omit<ErrorResponseOptions, 'headers' | 'tokenPresented'>,
  /**
   * A route that takes no token counts per address whatever Authorization says: otherwise a
   * made-up bearer token on each request would be a fresh budget for guessing at it.
   */
  options: { readonly byAddress?: boolean } = {},
): Promise<ApiRequest> {
  // Plain until an error answer needs a Headers object.
  const headers: [string, string][] = [];
  const respond = (failure: PpxFailure, tokenPresented?: boolean) =>
    errorResponse(failure, {
      ...errors,
      headers: new Headers(headers),
      ...(tokenPresented !== undefined ? { tokenPresented } : {}),
    });
  const token = readBearer(c.req.header('authorization'));
  const limited = await limitRequest(deps, 'api', () =>
    limiterKey(options.byAddress === true ? undefined : token, clientAddress(c)),
  );
  if (limited) headers.push(...limited.headers);
  const refused = limited?.allowed === false ? respond(RATE_LIMITED) : undefined;
  return { token, headers, respond, ...(refused ? { refused } : {}) };
}
