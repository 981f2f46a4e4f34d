import { randomUUID } from 'node:crypto';
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { accessTokenHash } from '../../src/auth/dpop.ts';

// Hand-made DPoP proofs (RFC 9449 §4), for tests that break one thing at a time: each option
// overrides one part of an otherwise valid proof.

export interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly jkt: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

export interface ProofParts {
  readonly htm: string;
  readonly htu: string;
  readonly accessToken?: string;
  /** Seconds since the epoch; now when absent. */
  readonly iat?: number;
  readonly jti?: string;
  readonly nonce?: string;
  readonly typ?: string;
  /** Sign with this key but put this other one in the header. */
  readonly headerJwk?: JWK;
  /** Leave `ath` out even with an access token. */
  readonly noAth?: boolean;
  readonly alg?: string;
}

export async function proof(key: DpopKey, parts: ProofParts): Promise<string> {
  const payload: Record<string, unknown> = {
    jti: parts.jti ?? randomUUID(),
    htm: parts.htm,
    htu: parts.htu,
    iat: parts.iat ?? Math.floor(Date.now() / 1000),
  };
  if (parts.accessToken !== undefined && !parts.noAth) payload['ath'] = accessTokenHash(parts.accessToken);
  if (parts.nonce !== undefined) payload['nonce'] = parts.nonce;
  return new SignJWT(payload)
    .setProtectedHeader({
      alg: parts.alg ?? 'ES256',
      typ: parts.typ ?? 'dpop+jwt',
      jwk: parts.headerJwk ?? key.publicJwk,
    })
    .sign(key.privateKey);
}

/** A compact JWS with any header and payload and a junk signature (alg none, HS256, …). */
export function unsigned(header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b(header)}.${b(payload)}.${Buffer.from('sig').toString('base64url')}`;
}
