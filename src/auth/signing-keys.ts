import { createPrivateKey, type JsonWebKeyInput, type KeyObject, type webcrypto } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

type CryptoKey = webcrypto.CryptoKey;

import type { Store } from '../store/store.ts';

export const TOKEN_ALG = 'EdDSA';

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The same private key for node:crypto's one-shot sign (tokens.ts#mint). */
  readonly signingKey: KeyObject;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

/**
 * The provider's token signing key, kept in the store so that every instance (and the CLI's
 * `mint`) signs and verifies with the same key. Created on first start.
 */
export async function loadSigningKey(store: Store): Promise<SigningKey> {
  const existing = (await store.listSigningKeys())[0];
  if (existing) return fromRecord(existing.kid, existing.private_jwk as JWK, existing.public_jwk as JWK);

  const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALG, { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(privateKey);
  await store
    .insertSigningKey({
      kid,
      alg: TOKEN_ALG,
      private_jwk: { ...privateJwk, kid, alg: TOKEN_ALG },
      public_jwk: { ...publicJwk, kid, alg: TOKEN_ALG, use: 'sig' },
      created_at: new Date().toISOString(),
    })
    .catch(() => undefined); // another instance won the race: use its key
  const stored = (await store.listSigningKeys())[0]!;
  return fromRecord(stored.kid, stored.private_jwk as JWK, stored.public_jwk as JWK);
}

async function fromRecord(kid: string, privateJwk: JWK, publicJwk: JWK): Promise<SigningKey> {
  const privateKey = (await importJWK(privateJwk, TOKEN_ALG)) as CryptoKey;
  const publicKey = (await importJWK(publicJwk, TOKEN_ALG)) as CryptoKey;
  return { kid, privateKey, signingKey: signingKeyOf(privateJwk), publicKey, publicJwk };
}

/** A private JWK as node:crypto's key (createPrivateKey reads an OKP JWK as it is). */
export function signingKeyOf(privateJwk: JWK): KeyObject {
  return createPrivateKey({ key: privateJwk as JsonWebKeyInput['key'], format: 'jwk' });
}
