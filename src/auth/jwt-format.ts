// The compact form of a signed JWT (RFC 7515 §7.1) as this provider reads it: three base64url
// segments without padding (RFC 7515 §2). The last character of a segment whose byte length is
// not a multiple of 3 also carries 2 or 4 padding bits, which decoders ignore, so one token has
// several spellings (an Ed25519 signature, 64 bytes, has 16). RFC 4648 §3.5 lets a decoder refuse
// pad bits that are not zero; this provider does, so that a token is one string: one entry in the
// verification cache, one rate-limit budget.

const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Longer than any token this provider mints (about 700 characters) by a wide margin. */
const MAX_TOKEN_LENGTH = 4096;

/**
 * The canonical spelling of a token shaped like a compact JWS (each segment decoded, then
 * encoded again), or undefined when it is not shaped like one. A token is canonical when this
 * returns the token itself. Decoding only: nothing here says the token is genuine.
 */
export function canonicalJwt(token: string): string | undefined {
  if (token.length > MAX_TOKEN_LENGTH || !COMPACT.test(token)) return undefined;
  return token
    .split('.')
    .map((segment) => Buffer.from(segment, 'base64url').toString('base64url'))
    .join('.');
}
