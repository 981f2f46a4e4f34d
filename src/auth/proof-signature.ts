import { constants, KeyObject, verify } from 'node:crypto';
import { importJWK, type JWK } from 'jose';

// The signature of a DPoP proof, checked synchronously by node:crypto with a key jose imported.
//
// Why not jose's own verify: jose 6 verifies through WebCrypto only, and Node runs
// `crypto.subtle.verify` as a job on the libuv thread pool. For ES256 that cost 180–240 µs of CPU
// per proof here against 90–100 µs for the same OpenSSL verify called synchronously
// (docs/oauth.md "DPoP", `npm run bench:dpop`). Every request with a DPoP-bound token pays it, so
// the signature step is the one place the proof leaves jose; jose still imports and validates
// the key (type, curve and algorithm agree, public only), decodes the header and payload, and
// computes the thumbprint.

/**
 * How each JWS algorithm of RFC 7518 §3 (and RFC 8037 for EdDSA) is verified by node:crypto.
 * ECDSA signatures arrive as r‖s (§3.4) and are turned into DER here rather than by node:crypto's
 * `dsaEncoding` option: a bare KeyObject skips Node's per-call key-option parsing, which was a
 * quarter of the verify's CPU (69 against 95 µs for ES256 here).
 */
interface Algorithm {
  readonly digest: string | null;
  /** RSASSA-PSS needs its padding and salt length said; the others take the bare key. */
  readonly options?: object;
  /** ECDSA: the length in bytes of r and of s. */
  readonly ecdsaPart?: number;
}

const ALGORITHMS: Record<string, Algorithm> = {
  ES256: { digest: 'sha256', ecdsaPart: 32 },
  ES384: { digest: 'sha384', ecdsaPart: 48 },
  ES512: { digest: 'sha512', ecdsaPart: 66 },
  EdDSA: { digest: null },
  Ed25519: { digest: null },
  PS256: { digest: 'sha256', options: pss(32) },
  PS384: { digest: 'sha384', options: pss(48) },
  PS512: { digest: 'sha512', options: pss(64) },
  RS256: { digest: 'sha256' },
  RS384: { digest: 'sha384' },
  RS512: { digest: 'sha512' },
};

/** RFC 7518 §3.5: RSASSA-PSS with MGF1 on the same hash and a salt as long as the hash. */
function pss(saltLength: number) {
  return { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength };
}

/** An r‖s signature (RFC 7518 §3.4) as the DER SEQUENCE of two INTEGERs that OpenSSL reads. */
function ecdsaDer(raw: Buffer, part: number): Buffer | undefined {
  if (raw.length !== 2 * part) return undefined;
  const integer = (bytes: Buffer) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.subarray(i);
    // A leading 1 bit would read as negative: prefix a zero byte.
    const body = (trimmed[0] as number) & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed;
    return Buffer.concat([Buffer.of(0x02), length(body.length), body]);
  };
  const content = Buffer.concat([integer(raw.subarray(0, part)), integer(raw.subarray(part))]);
  return Buffer.concat([Buffer.of(0x30), length(content.length), content]);
}

/** A DER length: short form under 128, else one length byte (a P-521 signature is at most 139). */
function length(n: number): Buffer {
  return n < 0x80 ? Buffer.of(n) : Buffer.of(0x81, n);
}

/** RFC 7518 §3.3 and §3.5: an RSA key of at least 2048 bits (jose's rule too). */
const MIN_RSA_BITS = 2048;

/** Verifies `signature` over `signingInput` (the proof's first two parts, as sent). Never throws. */
export type SignatureCheck = (signingInput: string, signature: Buffer) => boolean;

/**
 * A verifier for one public key and algorithm, or undefined when the JWK is not a public key
 * usable with `alg` (wrong type or curve, private, malformed, or an RSA key under 2048 bits).
 */
export async function signatureCheck(jwk: JWK, alg: string): Promise<SignatureCheck | undefined> {
  const algorithm = ALGORITHMS[alg];
  if (algorithm === undefined) return undefined;
  let key: KeyObject;
  try {
    const imported = await importJWK(jwk, alg);
    if (imported instanceof Uint8Array || imported.type !== 'public') return undefined;
    key = KeyObject.from(imported);
  } catch {
    return undefined;
  }
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (bits !== undefined && bits < MIN_RSA_BITS) return undefined;
  const { digest, options, ecdsaPart } = algorithm;
  const verifyKey = options === undefined ? key : { key, ...options };
  return (signingInput, signature) => {
    const sig = ecdsaPart === undefined ? signature : ecdsaDer(signature, ecdsaPart);
    if (sig === undefined) return false;
    try {
      return verify(digest, Buffer.from(signingInput, 'latin1'), verifyKey, sig);
    } catch {
      return false;
    }
  };
}
