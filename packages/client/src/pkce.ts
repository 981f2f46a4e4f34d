import { base64url, randomToken, sha256 } from './base64url.ts';

export interface Pkce {
  /** 43 characters of base64url (32 random bytes), kept by the client until the exchange. */
  readonly verifier: string;
  /** base64url(SHA-256(verifier)): what the request carries. */
  readonly challenge: string;
  readonly method: 'S256';
}

/** A fresh PKCE pair (RFC 7636, S256 only: the provider refuses `plain`). */
export async function createPkce(): Promise<Pkce> {
  const verifier = randomToken(32);
  return { verifier, challenge: await challengeOf(verifier), method: 'S256' };
}

async function challengeOf(verifier: string): Promise<string> {
  return base64url(await sha256(verifier));
}
