import { createHash } from 'node:crypto';
import { canonicalJwt } from '../../auth/jwt-format.ts';
import { fail, ok, type Result } from '../../model/errors.ts';

// The bearer token of a request (RFC 6750 §2.1), as every surface that takes one reads it: the
// HTTP API, /mcp and the OAuth endpoints that accept a subject's token.

/** `Authorization: Bearer <token>`: undefined when no header is sent; anything else sent is a bad token. */
export function readBearer(header: string | undefined): Result<string> | undefined {
  if (header === undefined || header === '') return undefined;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return m ? ok(m[1]!) : fail('invalid_token', 'the Authorization header must be "Bearer <token>"');
}

/** An access token as presented: RFC 6750's `Bearer` scheme, or RFC 9449 §7.1's `DPoP` (with a proof). */
export interface PresentedToken {
  readonly scheme: 'Bearer' | 'DPoP';
  readonly token: string;
}

/** `Authorization: Bearer <token>` or `Authorization: DPoP <token>`; undefined when no header is sent. */
export function readCredential(header: string | undefined): Result<PresentedToken> | undefined {
  if (header === undefined || header === '') return undefined;
  const m = /^(Bearer|DPoP)[ ]+([^\s]+)\s*$/i.exec(header);
  if (!m) return fail('invalid_token', 'the Authorization header must be "Bearer <token>" or "DPoP <token>"');
  return ok({ scheme: m[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: m[2]! });
}

/**
 * Rate-limit callers apart by token when they present one, else by address (docs/http-api.md,
 * "Rate limits"). A token counts by its decoded bytes, its canonical spelling
 * (auth/jwt-format.ts): every spelling of one token draws on one budget, and only the holder of
 * those exact bytes can spend it. No signature is checked here; a string that cannot be a token
 * at all counts against its address, so that made-up strings do not each get a budget.
 */
export function limiterKey(token: Result<string> | undefined, remoteAddress: string | undefined): string {
  const address = remoteAddress ?? 'unknown';
  if (!token?.ok) return address;
  const canonical = canonicalJwt(token.value);
  return canonical === undefined
    ? address
    : createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}
