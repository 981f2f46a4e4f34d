import { createHash } from 'node:crypto';
import { fail, ok, type Result } from '../../model/errors.ts';

// The bearer token of a request (RFC 6750 §2.1), as every surface that takes one reads it: the
// HTTP API, /mcp and the OAuth endpoints that accept a subject's token.

/** `Authorization: Bearer <token>`: undefined when no header is sent; anything else sent is a bad token. */
export function readBearer(header: string | undefined): Result<string> | undefined {
  if (header === undefined || header === '') return undefined;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return m ? ok(m[1]!) : fail('invalid_token', 'the Authorization header must be "Bearer <token>"');
}

/** Rate-limit callers apart by token when they present one, else by address. */
export function limiterKey(token: Result<string> | undefined, remoteAddress: string | undefined): string {
  return token?.ok
    ? createHash('sha256').update(token.value).digest('base64url').slice(0, 16)
    : (remoteAddress ?? 'unknown');
}
