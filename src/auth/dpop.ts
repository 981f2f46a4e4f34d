import { createHash } from 'node:crypto';
import {
  type CryptoKey,
  calculateJwkThumbprint,
  decodeProtectedHeader,
  errors,
  importJWK,
  type JWK,
  jwtVerify,
} from 'jose';
import { fail, ok, type Result } from '../model/errors.ts';

// DPoP proofs (RFC 9449 §4.3), checked the same way at the token endpoints and at every
// protected resource. Pure: the clock, the expected method and URL, the access token and the
// nonce rule come in as arguments; whether a proof's `jti` was seen before is the caller's to
// ask (operations/tokens/dpop-proof.ts, through the replay ledger), since that is shared state.

/** RFC 9449 §5.1 `dpop_signing_alg_values_supported`: asymmetric only (§4.3 step 5; §11.6). */
export const DPOP_ALGS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
] as const;

/** §11.1: how old a proof may be (seconds before now), and how far ahead a client clock may run. */
export const PROOF_MAX_AGE_SECONDS = 300;
export const PROOF_FUTURE_SECONDS = 60;

/** Far above a proof with an RSA-4096 key (about 1,500 characters); a bigger header is refused unread. */
const MAX_PROOF_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;
/** JWK members only a private key has (RFC 7518 §6.2.2, §6.3.2; §6.4 for `k`). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * Proof keys already imported, with their thumbprints, by alg and JWK as sent: a client signs
 * every proof with one key, and importing it and hashing it again each time was half the cost of
 * a proof (measured: 566 against 298 µs CPU for ES256 here, docs/oauth.md "DPoP"). Public keys
 * only; bounded and safe to lose.
 */
const keys = new Map<string, { readonly key: CryptoKey; readonly jkt: string }>();
const KEY_CACHE_LIMIT = 10_000;

async function proofKey(jwk: JWK, alg: string): Promise<{ key: CryptoKey; jkt: string } | undefined> {
  // A digest, not the JWK itself: a key as sent may be padded up to the proof's size limit.
  const id = createHash('sha256').update(alg).update('\0').update(JSON.stringify(jwk)).digest('base64url');
  const known = keys.get(id);
  if (known) return known;
  try {
    const key = await importJWK(jwk, alg);
    if (key instanceof Uint8Array || key.type !== 'public') return undefined;
    const entry = { key, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
    if (keys.size >= KEY_CACHE_LIMIT) keys.clear();
    keys.set(id, entry);
    return entry;
  } catch {
    return undefined;
  }
}

/** What one request expects of its proof. */
export interface ProofExpectation {
  /** The request's method (§4.3 step 8). */
  readonly htm: string;
  /** The request's URL without query and fragment, as seen at the provider's base URL (step 9). */
  readonly htu: string;
  readonly now: Date;
  /** The access token presented with the proof: its hash must be the proof's `ath` (step 12). */
  readonly accessToken?: string;
  /** Step 10: whether the proof's `nonce` (possibly absent) is one the server gave out and still takes. */
  readonly nonceOk?: (nonce: string | undefined) => boolean;
}

/** A proof that passed: the key's thumbprint (RFC 7638, the `cnf.jkt` of RFC 9449 §6.1), its jti and iat. */
export interface VerifiedProof {
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
}

function bad(description: string) {
  return fail('invalid_dpop_proof', `the DPoP proof ${description}`);
}

/**
 * RFC 9449 §4.3's checks, in its order, except step 11's replay check (the caller's, against
 * shared state). `header` is the request's `DPoP` header as received (several headers arrive
 * joined by commas, which a compact JWS never contains: §4.3 step 1, "not more than one").
 * Never throws: every malformed input is `invalid_dpop_proof` with a description.
 */
export async function verifyProof(
  header: string | undefined,
  expect: ProofExpectation,
): Promise<Result<VerifiedProof>> {
  if (header === undefined || header === '') return bad('is missing: send one in the DPoP header');
  if (header.length > MAX_PROOF_LENGTH) return bad(`is longer than ${MAX_PROOF_LENGTH} characters`);
  if (header.includes(',')) return bad('must be sent in exactly one DPoP header');
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(header)) {
    return bad('is not a compact JWS (three base64url parts)');
  }
  let protectedHeader: ReturnType<typeof decodeProtectedHeader>;
  try {
    protectedHeader = decodeProtectedHeader(header);
  } catch {
    return bad('has a header that is not base64url-encoded JSON');
  }
  // Steps 4–6: the type, an asymmetric algorithm, and a public key of its own.
  if (protectedHeader.typ !== 'dpop+jwt') return bad('must have typ "dpop+jwt"');
  const alg = protectedHeader.alg;
  if (typeof alg !== 'string' || !(DPOP_ALGS as readonly string[]).includes(alg)) {
    return bad(`must be signed with one of ${DPOP_ALGS.join(', ')} (not "${String(alg).slice(0, 20)}")`);
  }
  const jwk = protectedHeader.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    return bad('must carry the public key in its jwk header');
  }
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) {
    return bad('carries a private or symmetric key in its jwk header');
  }
  if ((jwk.alg !== undefined && jwk.alg !== alg) || (jwk.use !== undefined && jwk.use !== 'sig')) {
    return bad('has a jwk whose alg or use does not match the proof');
  }
  const embedded = await proofKey(jwk, alg);
  if (embedded === undefined) return bad(`has a jwk that is not a public key for ${alg}`);
  let payload: Record<string, unknown>;
  try {
    // Step 7: the signature, with the key in the proof itself.
    ({ payload } = await jwtVerify(header, embedded.key, { typ: 'dpop+jwt', algorithms: [alg] }));
  } catch (e) {
    if (e instanceof errors.JWSSignatureVerificationFailed) return bad('signature does not verify');
    return bad('could not be read: its jwk or its claims are malformed');
  }
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) {
    return bad(`must have a jti of 1 to ${MAX_JTI_LENGTH} characters`);
  }
  // Step 8: the method; step 9: the URL, both compared after syntax-based normalization.
  if (htm !== expect.htm) return bad(`is for ${String(htm).slice(0, 10)}, not ${expect.htm}`);
  if (typeof htu !== 'string' || !sameTarget(htu, expect.htu)) return bad(`is not for ${expect.htu}`);
  // Step 11 (the window half): iat within the acceptable window (§11.1).
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return bad('must have a numeric iat');
  const nowSeconds = expect.now.getTime() / 1000;
  if (iat < nowSeconds - PROOF_MAX_AGE_SECONDS) {
    return bad(`is too old (iat more than ${PROOF_MAX_AGE_SECONDS} seconds ago)`);
  }
  if (iat > nowSeconds + PROOF_FUTURE_SECONDS) return bad('was issued in the future (check the clock)');
  // Step 12: bound to the very access token presented with it.
  if (expect.accessToken !== undefined) {
    if (typeof ath !== 'string') return bad('must carry ath, the hash of the access token');
    if (ath !== accessTokenHash(expect.accessToken)) return bad('ath does not match the access token');
  }
  // Step 10: the server's nonce, when it asks for one.
  if (expect.nonceOk !== undefined) {
    const nonce = payload['nonce'];
    if (nonce !== undefined && typeof nonce !== 'string') return bad('has a nonce that is not a string');
    if (!expect.nonceOk(nonce)) {
      return fail('use_dpop_nonce', 'a DPoP proof must carry the nonce of the DPoP-Nonce header');
    }
  }
  return ok({ jkt: embedded.jkt, jti, iat });
}

/** RFC 9449 §4.1 `ath`: base64url SHA-256 of the access token's ASCII bytes. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** §4.3 step 9: the same URL, query and fragment ignored, after RFC 3986 §6.2.2–6.2.3 normalization. */
function sameTarget(htu: string, expected: string): boolean {
  if (htu.length > 2048 || !URL.canParse(htu)) return false;
  const a = new URL(htu);
  const b = new URL(expected);
  return a.origin === b.origin && a.pathname === b.pathname;
}
