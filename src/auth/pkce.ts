import { createHash } from 'node:crypto';
import { safeEqual } from './secrets.ts';

// PKCE (RFC 7636), S256 only: `plain` and a missing challenge are refused upstream (OAuth 2.1).

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** A S256 challenge is the base64url SHA-256 of the verifier: 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Whether `verifier` answers `challenge` (RFC 7636 §4.6). */
export function verifyS256(verifier: string, challenge: string): boolean {
  return VERIFIER.test(verifier) && safeEqual(s256(verifier), challenge);
}
