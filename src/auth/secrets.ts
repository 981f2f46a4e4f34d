import { hash, randomFillSync, timingSafeEqual } from 'node:crypto';

/**
 * Entropy drawn 4 KiB at a time and handed out once each, as node:crypto's randomUUID does: a
 * randomBytes call per token cost 4-8 µs (a system call and a Buffer each), a share of a token
 * refresh, against well under 1 µs from here. No byte is ever handed out twice.
 */
const POOL = Buffer.allocUnsafe(4096);
let used = POOL.length;

/** A random capability (request token, refresh token, session secret): 256 bits, base64url. */
export function randomToken(bytes = 32): string {
  if (bytes > 256) return randomFillSync(Buffer.allocUnsafe(bytes)).toString('base64url');
  if (used + bytes > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  const token = POOL.toString('base64url', used, used + bytes);
  // Spent: zeroed, so the pool never holds a capability already handed out.
  POOL.fill(0, used, used + bytes);
  used += bytes;
  return token;
}

/** The SHA-256 (base64url) under which a capability is stored; the capability itself never is. */
export function sha256(value: string): string {
  // The one-shot hash: no Hash object per call (a refresh hashes two tokens).
  return hash('sha256', value, 'base64url');
}

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
